import Foundation
import Testing
@testable import TrackYourHearing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Track Your Hearing: the questionnaire one question at a time (thesis FR5, NFR4)", .timeLimit(.minutes(10)))
struct HearingQuestionnaireTests {
    @Test("each question shows its place (1/6 … 6/6); the sheet is saved with every answer")
    func progress() throws {
        let fixture = try HearingFixture(input: HearingFixture.answers)
        let result = fixture.run("tyh fill")
        #expect(result.succeeded, "\(result.err)")
        let prompts = (fixture.services.input as! ScriptedInput).prompts
        #expect(prompts.map { String($0.prefix(4)) } == ["1/6 ", "2/6 ", "3/6 ", "4/6 ", "5/6 ", "6/6 "])
        let sheets = try fixture.context.studyQuestionnaires.sheets()
        #expect(sheets.count == 1)
        #expect(sheets[0].sheet.answers["impairment"]?.value == .number(40))
        #expect(sheets[0].sheet.answers["mood"]?.value == .number(4))
        #expect(sheets[0].upload == .deviceOnly)
    }

    @Test("stopping half way keeps a draft and sends nothing; the next fill continues at the question it stopped")
    func draftResume() throws {
        let fixture = try HearingFixture(input: Array(HearingFixture.answers.prefix(3)))
        #expect(!fixture.run("tyh fill").succeeded)
        #expect(try fixture.context.studyQuestionnaires.sheets().isEmpty)
        #expect(try fixture.harness.queued().isEmpty)
        (fixture.services.input as! ScriptedInput).append(["y"] + Array(HearingFixture.answers.suffix(3)))
        let resumed = fixture.run("tyh fill")
        #expect(resumed.succeeded, "\(resumed.err)")
        let prompts = (fixture.services.input as! ScriptedInput).prompts
        #expect(prompts.suffix(3).map { String($0.prefix(4)) } == ["4/6 ", "5/6 ", "6/6 "])
        let sheet = try #require(try fixture.context.studyQuestionnaires.sheets().first?.sheet)
        #expect(sheet.answers.count == 6 && sheet.answers["device"]?.value == .number(0))
    }

    @Test("an answer out of range is asked again; it never moves on with a wrong value")
    func outOfRange() throws {
        let fixture = try HearingFixture(input: ["140", "40"] + HearingFixture.answers.dropFirst() + [])
        #expect(fixture.run("tyh fill").succeeded)
        #expect(try fixture.context.studyQuestionnaires.sheets().first?.sheet.answers["impairment"]?.value == .number(40))
    }

    @Test("a sheet started within an hour after a reminder carries that reminder; later ones do not")
    func remindedAt() throws {
        let fixture = try HearingFixture(input: HearingFixture.answers + HearingFixture.answers)
        #expect(fixture.run("tyh reminders on").succeeded)
        let reminder = try #require(try fixture.reminders.planned(from: HearingFixture.now, to: HearingFixture.now.addingTimeInterval(86_400)).first)
        fixture.harness.clock.advance(by: reminder.date.timeIntervalSince(HearingFixture.now) + 600)
        #expect(fixture.run("tyh fill").succeeded)
        let first = try #require(try fixture.context.studyQuestionnaires.sheets().first?.sheet)
        #expect(first.remindedAt?.date == reminder.date)
        // Turn reminders off: nothing prompts the next sheet.
        #expect(fixture.run("tyh reminders off").succeeded)
        #expect(fixture.run("tyh fill").succeeded)
        #expect(try fixture.context.studyQuestionnaires.sheets().first?.sheet.remindedAt == nil)
    }

    @Test("the standalone program needs an account for its questionnaire")
    func standaloneNeedsAccount() throws {
        let fixture = try HearingFixture(program: .standalone)
        let refused = fixture.run("fill")
        #expect(!refused.succeeded && refused.err.contains("track-your-hearing needs an account"))
    }
}

@Suite("Track Your Hearing: reminders within the person's limits (thesis FR6, FR7)", .timeLimit(.minutes(10)))
struct HearingReminderTests {
    static func days(_ fixture: HearingFixture) throws -> [LocalDate: [TimeOfDay]] {
        let start = HearingFixture.now
        let planned = try fixture.reminders.planned(from: start, to: start.addingTimeInterval(7 * 86_400))
        return Dictionary(grouping: planned, by: \.localDate).mapValues { $0.map(\.localTime) }
    }

    @Test("by default: off in the shell without a hearing study; on: twelve a day inside 08:00–22:00, 15 minutes apart")
    func defaults() throws {
        let fixture = try HearingFixture()
        #expect(try Self.days(fixture).isEmpty)
        #expect(fixture.run("tyh reminders on").succeeded)
        let days = try Self.days(fixture)
        let tuesday = try #require(days[LocalDate(year: 2026, month: 11, day: 24)])
        #expect(tuesday.count == 12)
        #expect(tuesday.allSatisfy { $0 >= TimeOfDay(hour: 8, minute: 0) && $0 <= TimeOfDay(hour: 22, minute: 0) })
        #expect(zip(tuesday, tuesday.dropFirst()).allSatisfy { $1.minutes - $0.minutes >= 15 })
        let standalone = try HearingFixture(program: .standalone)
        #expect(try standalone.reminders.isEnabled(standalone.reminders.plan()))
    }

    @Test("per-day outside 1–12 and windows under four hours are refused in one line; nothing changes")
    func limits() throws {
        let fixture = try HearingFixture()
        #expect(fixture.run("tyh reminders on").succeeded)
        let before = try Self.days(fixture)
        for line in ["tyh reminders per-day 0", "tyh reminders per-day 13", "tyh reminders window mon 09:00 12:59",
                     "tyh reminders window mon 18:00 09:00", "tyh reminders window mon 9 to 5", "tyh reminders day xyz off"] {
            let refused = fixture.run(line)
            #expect(!refused.succeeded, "\(line)")
            #expect(refused.err.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines).split(separator: "\n").count == 1, "\(line): \(refused.err)")
        }
        #expect(try Self.days(fixture) == before)
        #expect(fixture.run("tyh reminders window mon 09:00 13:00").succeeded)
        #expect(fixture.run("tyh reminders per-day 3").succeeded)
        let today = LocalDate(HearingFixture.now, in: ModuleHarness.berlin)
        // Whole days only: the first and the last of the week planned are cut by the range.
        let whole = try Self.days(fixture).filter { $0.key != today && $0.key != today.adding(days: 7) }
        #expect(whole.count == 6 && whole.values.allSatisfy { $0.count == 3 })
    }

    @Test("changing one day's window replans that day only")
    func replanOneDay() throws {
        let fixture = try HearingFixture()
        #expect(fixture.run("tyh reminders on").succeeded)
        let before = try Self.days(fixture)
        #expect(fixture.run("tyh reminders window wed 12:00 20:00").succeeded)
        let after = try Self.days(fixture)
        let wednesday = LocalDate(year: 2026, month: 11, day: 25)
        #expect(after[wednesday] != before[wednesday])
        #expect(after[wednesday]!.allSatisfy { $0 >= TimeOfDay(hour: 12, minute: 0) && $0 <= TimeOfDay(hour: 20, minute: 0) })
        for (day, times) in before where day != wednesday { #expect(after[day] == times) }
    }

    @Test("a day off has no reminders; all off keeps the days and windows, on restores them; sound follows its switch")
    func switches() throws {
        let fixture = try HearingFixture()
        #expect(fixture.run("tyh reminders on").succeeded)
        #expect(fixture.run("tyh reminders window fri 10:00 15:00").succeeded)
        #expect(fixture.run("tyh reminders day sun off").succeeded)
        let withDays = try Self.days(fixture)
        #expect(withDays[LocalDate(year: 2026, month: 11, day: 29)] == nil)
        #expect(fixture.run("tyh reminders off").succeeded)
        #expect(try Self.days(fixture).isEmpty)
        #expect(fixture.run("tyh reminders on").succeeded)
        #expect(try Self.days(fixture) == withDays)
        #expect(fixture.run("tyh reminders sound off").succeeded)
        #expect(try fixture.reminders.rule()?.sound == false)
        let json = try JSONSerialization.jsonObject(with: Data(fixture.run("tyh reminders show --json").out.utf8)) as! [String: Any]
        #expect(json["sound"] as? Bool == false && json["enabled"] as? Bool == true)
        #expect((json["days"] as! [[String: Any]]).first { ($0["weekday"] as? String)?.lowercased().hasPrefix("su") == true }?["enabled"] as? Bool == false)
    }
}

@Suite("Track Your Hearing: statistics and rewards (thesis FR8, FR11)", .timeLimit(.minutes(10)))
struct HearingStatsAndRewardsTests {
    @Test("stats count every sheet and list the last ten, newest first")
    func stats() throws {
        var input: [String] = []
        for index in 0..<12 { input += ["\(index * 5)"] + HearingFixture.answers.dropFirst() }
        let fixture = try HearingFixture(input: input)
        for _ in 0..<12 {
            #expect(fixture.run("tyh fill").succeeded)
            fixture.harness.clock.advance(by: 3 * 3600)
        }
        let json = try JSONSerialization.jsonObject(with: Data(fixture.run("tyh stats --json").out.utf8)) as! [String: Any]
        #expect(json["completed"] as? Int == 12)
        let lastTen = json["lastTen"] as! [[String: Any]]
        #expect(lastTen.count == 10)
        #expect(lastTen.map { $0["value"] as? Double } == (2..<12).reversed().map { Double($0 * 5) })
        let text = fixture.run("tyh stats").out
        #expect(text.contains("Completed questionnaires: 12") && text.contains("55 %"))
    }

    @Test("rewards show the last known state offline, marked with its time, and badge names in words")
    func offlineRewards() throws {
        let fixture = try HearingFixture()
        let status = RewardStatus(studyId: "hear", points: 135, level: 2, nextLevelAt: 250, completed: 12, onTime: 3,
                                  currentStreak: 4, longestStreak: 6, lastDay: "2026-11-22",
                                  badges: [RewardBadge(id: "first-sheet", earnedAt: "2026-11-10T09:00:00+01:00"),
                                           RewardBadge(id: "streak-3", earnedAt: "2026-11-12T09:00:00+01:00")])
        let cached = RewardsCommand.Cached(fetchedAt: "2026-11-22T20:00:00+01:00", list: RewardList(studies: [status]))
        try fixture.context.setModuleSetting(RewardsCommand.cacheKey, to: String(decoding: try JSONEncoder().encode(cached), as: UTF8.self))
        let shown = fixture.run("tyh rewards")
        #expect(shown.out.contains("135 points, level 2 (115 more to the next level)"))
        #expect(shown.out.contains("streak: 4 days in a row (longest: 6)"))
        #expect(shown.out.contains("badges: first answer, 3 days in a row"))
        #expect(shown.err.contains("As of 2026-11-22 20:00"))
        // Two days after the last answer the streak is over.
        fixture.harness.clock.advance(by: 2 * 86_400)
        #expect(fixture.run("tyh rewards").out.contains("no current streak"))
    }
}
