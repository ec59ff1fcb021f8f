import Foundation
import Testing
@testable import TrackYourTinnitus
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// Track Your Tinnitus prompts check-ins by the study's schedule when the study's check-in
/// questionnaire (`tyt-momentary`) sets prompt windows or a gap (issue 47): its number a day, its
/// windows per weekday, its gap, its first and last day; the person's windows and count only where
/// the study allows changes, within its shift; never custom times on top.
@Suite("Check-in reminders follow the study's schedule", .timeLimit(.minutes(2)))
struct TinnitusStudyRemindersTests {
    static let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 10, minute: 0), in: ModuleHarness.berlin)
    static let weekdays = [PromptWindow(days: ["mon", "tue", "wed", "thu", "fri"], from: "09:00", to: "17:00")]

    /// Joins a server study whose check-in questionnaire prompts three times a day on weekdays 09:00-17:00.
    static func join(_ fixture: TinnitusFixture, changeable: Bool = false, shift: Int? = nil) throws {
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 3, startOnDay: 1, endOnDay: 10,
                                             windows: weekdays, minimumGapMinutes: 60, windowShiftMinutes: shift)
        var definition = QuestionnaireDefinition(
            id: MomentaryQuestionnaire.id, version: 7, title: "Tinnitus now", kind: .repeating, schedule: schedule, scheduleChangeable: changeable,
            items: [QuestionnaireItem(label: "loudness", text: "How loud?", required: true, element: .slider(SliderRange(min: 0, max: 100, step: 1)))])
        definition.completionWindowMinutes = 30
        try fixture.services.studies.recordJoined(StudyDescriptor(id: "ema-study", title: "EMA study", modules: ["tyt"]), at: now)
        let entry = AssignedQuestionnaire(id: definition.id, version: 7, studyId: "ema-study", module: "tyt", active: true,
                                          joinedAt: OffsetTimestamp(now, in: ModuleHarness.berlin).text,
                                          definition: try JSONDecoder().decode(JSONValue.self, from: try APIClient.encoder.encode(definition)))
        try fixture.services.database.writer.write { db in
            _ = try StudyQuestionnaireStore.apply(AssignedQuestionnaireList(questionnaires: [entry]), etag: nil, in: db)
        }
    }

    static func planned(_ fixture: TinnitusFixture, days: Int = 14) throws -> [LocalDate: [Int]] {
        let prompts = try ReminderPlanner(timeZone: ModuleHarness.berlin).plan(
            ModuleReminderSource(module: fixture.context.module, source: fixture.module.reminderSource(fixture.context)),
            from: now, to: now.addingTimeInterval(Double(days) * 86_400))
        #expect(prompts.allSatisfy { $0.questionnaireID == MomentaryQuestionnaire.id && $0.command == "tyt fill" })
        return Dictionary(grouping: prompts, by: \.localDate).mapValues { $0.map(\.localTime.minutes).sorted() }
    }

    @Test("the study's number, windows, gap and days place every check-in prompt; the person's own plan is set aside and cannot be changed")
    func studyDecides() throws {
        let fixture = try TinnitusFixture(now: Self.now)
        #expect(fixture.harness.runCapturing("tyt notify count 8").succeeded, "the person's own plan before joining")
        try Self.join(fixture)
        let days = try Self.planned(fixture)
        let joined = LocalDate(Self.now, in: ModuleHarness.berlin)
        // Days 1 to 10 after joining, weekdays only (no weekend window), three each, an hour apart at least.
        #expect(days.keys.sorted() == (1...10).map { joined.adding(days: $0) }.filter { $0.weekday.rawValue <= 5 })
        for (date, minutes) in days {
            #expect(minutes.count == 3 && minutes.allSatisfy { (540...1020).contains($0) }, "\(date): \(minutes)")
            #expect(zip(minutes, minutes.dropFirst()).allSatisfy { $1 - $0 >= 60 }, "\(date): \(minutes)")
        }
        let show = fixture.harness.runCapturing("tyt notify")
        #expect(show.out.contains("EMA study") && show.out.contains("at least 60 minutes"), "\(show.out)")
        for line in ["tyt notify count 2", "tyt notify window mon 07:00 22:00", "tyt notify add mon 07:30", "tyt notify clear"] {
            let refused = fixture.harness.runCapturing(line)
            #expect(!refused.succeeded && refused.err.contains("EMA study sets when check-in reminders come"), "\(line): \(refused.err)")
            #expect(refused.err.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1, "\(line): \(refused.err)")
        }
        #expect(try Self.planned(fixture) == days, "nothing changed")
    }

    @Test("where the study allows changes: windows within its shift, a lower number, no custom times")
    func changesWithinLimits() throws {
        let fixture = try TinnitusFixture(now: Self.now)
        try Self.join(fixture, changeable: true, shift: 60)
        let moved = fixture.harness.runCapturing("tyt notify window mon 08:00 12:00")
        #expect(moved.succeeded, "\(moved.err)")
        let early = fixture.harness.runCapturing("tyt notify window tue 07:30 17:00")
        #expect(!early.succeeded && early.err.contains("07:30") && early.err.contains("60 minutes"), "\(early.err)")
        let custom = fixture.harness.runCapturing("tyt notify add wed 12:00")
        #expect(!custom.succeeded && custom.err.contains("custom times"), "\(custom.err)")
        #expect(fixture.harness.runCapturing("tyt notify count 2").succeeded)
        let days = try Self.planned(fixture)
        #expect(!days.isEmpty)
        for (date, minutes) in days {
            let window = date.weekday == .monday ? 480...720 : 540...1020
            #expect(minutes.count == 2 && minutes.allSatisfy { window.contains($0) }, "\(date): \(minutes)")
            #expect(zip(minutes, minutes.dropFirst()).allSatisfy { $1 - $0 >= 60 }, "\(date): \(minutes)")
        }
    }
}
