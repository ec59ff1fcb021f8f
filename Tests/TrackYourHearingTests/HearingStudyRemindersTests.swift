import Foundation
import Testing
@testable import TrackYourHearing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// Track Your Hearing plans by the study's schedule when a study gives the person a daily hearing
/// questionnaire (issue 47): its number a day, its windows per weekday, its gap, its first and
/// last day; the person's windows and count only where the study allows changes, within its shift.
@Suite("Hearing reminders follow the study's schedule", .timeLimit(.minutes(2)))
struct HearingStudyRemindersTests {
    static let weekdays = [PromptWindow(days: ["mon", "tue", "wed", "thu", "fri"], from: "09:00", to: "17:00")]

    /// Joins a server study whose hearing questionnaire prompts `amount` times a day on weekdays 09:00-17:00.
    static func join(_ fixture: HearingFixture, amount: Int = 3, changeable: Bool = false, shift: Int? = nil) throws {
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: amount, startOnDay: 1, endOnDay: 10,
                                             windows: weekdays, minimumGapMinutes: 60, windowShiftMinutes: shift)
        var definition = QuestionnaireDefinition(
            id: "hearing-ema", version: 1, title: "Hearing now", kind: .repeating, schedule: schedule, scheduleChangeable: changeable,
            items: [QuestionnaireItem(label: "effort", text: "Listening effort?", required: true, element: .slider(SliderRange(min: 0, max: 100, step: 1)))])
        definition.completionWindowMinutes = 30
        try fixture.services.studies.recordJoined(StudyDescriptor(id: "hearing-study", title: "Hearing study", modules: ["tyh"]), at: HearingFixture.now)
        let entry = AssignedQuestionnaire(id: definition.id, version: 1, studyId: "hearing-study", module: "tyh", active: true,
                                          joinedAt: OffsetTimestamp(HearingFixture.now, in: ModuleHarness.berlin).text,
                                          definition: try JSONDecoder().decode(JSONValue.self, from: try APIClient.encoder.encode(definition)))
        try fixture.services.database.writer.write { db in
            _ = try StudyQuestionnaireStore.apply(AssignedQuestionnaireList(questionnaires: [entry]), etag: nil, in: db)
        }
    }

    static func planned(_ fixture: HearingFixture, days: Int = 14) throws -> [LocalDate: [Int]] {
        let now = fixture.harness.clock.now
        let prompts = try fixture.reminders.planned(from: now, to: now.addingTimeInterval(Double(days) * 86_400))
        #expect(prompts.allSatisfy { $0.questionnaireID == "hearing-ema" })
        return Dictionary(grouping: prompts, by: \.localDate).mapValues { $0.map(\.localTime.minutes).sorted() }
    }

    @Test("the study's number, windows, gap and days place every prompt; windows and number are locked, switching off is not")
    func studyDecides() throws {
        let fixture = try HearingFixture()
        try Self.join(fixture)
        let days = try Self.planned(fixture)
        let joined = LocalDate(HearingFixture.now, in: ModuleHarness.berlin)
        // Days 1 to 10 after joining, weekdays only (the study has no weekend window), three each.
        #expect(days.keys.sorted() == (1...10).map { joined.adding(days: $0) }.filter { $0.weekday.rawValue <= 5 })
        for (date, minutes) in days {
            #expect(minutes.count == 3 && minutes.allSatisfy { (540...1020).contains($0) }, "\(date): \(minutes)")
            #expect(zip(minutes, minutes.dropFirst()).allSatisfy { $1 - $0 >= 60 }, "\(date): \(minutes)")
        }
        let show = fixture.run("tyh reminders")
        #expect(show.out.contains("Hearing study") && show.out.contains("09:00–17:00") && show.out.contains("at most 3 a day"), "\(show.out)")
        let moved = fixture.run("tyh reminders window mon 07:00 22:00")
        #expect(!moved.succeeded && moved.err.contains("sets when reminders come"), "\(moved.err)")
        #expect(!fixture.run("tyh reminders per-day 5").succeeded)
        #expect(fixture.run("tyh reminders off").succeeded)
        #expect(try Self.planned(fixture).isEmpty)
        #expect(fixture.run("tyh reminders on").succeeded)
        #expect(try Self.planned(fixture) == days, "the same times again: drawn from the study's seed")
    }

    @Test("where the study allows changes, a lower number is a limit and a window moves within the shift, no further")
    func changesWithinLimits() throws {
        let fixture = try HearingFixture()
        try Self.join(fixture, amount: 4, changeable: true, shift: 60)
        #expect(fixture.run("tyh reminders per-day 2").succeeded)
        #expect(try Self.planned(fixture).values.allSatisfy { $0.count == 2 })
        #expect(fixture.run("tyh reminders window mon 08:00 17:00").succeeded)
        let early = fixture.run("tyh reminders window tue 07:30 17:00")
        #expect(!early.succeeded && early.err.contains("07:30") && early.err.contains("60 minutes"), "\(early.err)")
        let monday = LocalDate(year: 2026, month: 11, day: 30)
        let planned = try #require(try Self.planned(fixture)[monday])
        #expect(planned.count == 2 && planned.allSatisfy { (480...1020).contains($0) }, "\(planned)")
    }
}
