import Foundation
import Testing
@testable import TrackYourStress
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Track Your Stress: reminders follow the schedule (thesis FR16, FR17)", .timeLimit(.minutes(10)))
struct StressRemindersTests {
    /// The demo study with its one-time questionnaire answered, so the repeating ones remind.
    static func answered() throws -> StressFixture {
        let fixture = try StressFixture(input: StressFixture.aboutYou)
        #expect(fixture.run("tys fill").succeeded)
        return fixture
    }

    static func planned(_ fixture: StressFixture, days: Int = 7) throws -> [PlannedReminder] {
        let now = fixture.harness.clock.now
        return try ReminderPlanner(timeZone: ModuleHarness.berlin).plan(
            ModuleReminderSource(module: fixture.context.module, source: StressReminders(context: fixture.context).source()),
            from: now, to: now.addingTimeInterval(Double(days) * 86_400))
    }

    @Test("standard reminders: the schedule's amount per day inside the windows, a completion window (60 minutes) apart; weekly and monthly once")
    func standard() throws {
        let fixture = try Self.answered()
        let planned = try Self.planned(fixture)
        let daily = planned.filter { $0.questionnaireID == "tys-demo-daily" }
        let tomorrow = LocalDate(year: 2026, month: 11, day: 24)
        let times = daily.filter { $0.localDate == tomorrow }.map(\.localTime)
        #expect(times.count == 2)
        #expect(times.allSatisfy { $0 >= TimeOfDay(hour: 8, minute: 0) && $0 <= TimeOfDay(hour: 22, minute: 0) })
        #expect(times[1].minutes - times[0].minutes >= 60)
        #expect(planned.filter { $0.questionnaireID == "tys-demo-weekly" }.count == 1)
        #expect(planned.allSatisfy { $0.command.hasPrefix("tys fill ") })
        // The same times on a second run (the reminder daemon and the shell agree).
        #expect(try Self.planned(fixture).map(\.date) == planned.map(\.date))
    }

    @Test("no reminders for repeating questionnaires while the one-time questionnaire is open")
    func heldBackByOneTime() throws {
        let fixture = try StressFixture()
        #expect(try Self.planned(fixture).isEmpty)
    }

    @Test("custom times for a daily questionnaire; weekly ones take exactly one time; a weekday can be turned off")
    func custom() throws {
        let fixture = try Self.answered()
        #expect(fixture.run("tys reminders custom tys-demo-daily 09:00 13:30 19:00").succeeded)
        let sunday = LocalDate(year: 2026, month: 11, day: 29)
        var daily = try Self.planned(fixture).filter { $0.questionnaireID == "tys-demo-daily" }
        #expect(daily.filter { $0.localDate == sunday }.map(\.localTime.description) == ["09:00", "13:30", "19:00"])
        #expect(fixture.run("tys reminders day tys-demo-daily sun off").succeeded)
        daily = try Self.planned(fixture).filter { $0.questionnaireID == "tys-demo-daily" }
        #expect(daily.filter { $0.localDate == sunday }.isEmpty)
        #expect(!daily.filter { $0.localDate == sunday.adding(days: -1) }.isEmpty)

        let two = fixture.run("tys reminders custom tys-demo-weekly 07:30 08:00")
        #expect(!two.succeeded && two.err.contains("exactly one"))
        #expect(fixture.run("tys reminders custom tys-demo-weekly 07:30").succeeded)
        let weekly = try Self.planned(fixture, days: 8).filter { $0.questionnaireID == "tys-demo-weekly" }
        #expect(weekly.map(\.localTime.description) == ["07:30"])
        // `tys reminders ID` shows one questionnaire (show is the default subcommand).
        let shown = fixture.run("tys reminders tys-demo-weekly")
        #expect(shown.succeeded && shown.out.contains("on Monday at 07:30") && !shown.out.contains("tys-demo-daily"))
        #expect(weekly.first?.localDate.weekday == .monday)
    }

    @Test("a count that does not fit the window is refused with the largest that fits, and nothing changes")
    func countTooLarge() throws {
        let fixture = try Self.answered()
        // Prompts are a completion window (60 minutes, the default) apart: three fit 08:00-10:00.
        #expect(fixture.run("tys reminders window tys-demo-daily mon 08:00 10:00").succeeded)
        let refused = fixture.run("tys reminders standard tys-demo-daily 4")
        #expect(!refused.succeeded)
        #expect(refused.err.contains("at least 60 minutes apart") && refused.err.contains("at most 3 fit"), "\(refused.err)")
        let shown = try JSONSerialization.jsonObject(with: Data(fixture.run("tys reminders show tys-demo-daily --json").out.utf8)) as! [[String: Any]]
        #expect(shown.first?["perDay"] as? Int == 2)
        #expect(fixture.run("tys reminders standard tys-demo-daily 3").succeeded)
        let reset = fixture.run("tys reminders reset tys-demo-daily")
        #expect(reset.succeeded)
        let after = try JSONSerialization.jsonObject(with: Data(fixture.run("tys reminders show tys-demo-daily --json").out.utf8)) as! [[String: Any]]
        #expect(after.first?["perDay"] as? Int == 2)
    }

    @Test("a questionnaire whose study fixes the schedule refuses every change in one line and keeps its reminders")
    func locked() throws {
        let fixture = try Self.answered()
        let before = try Self.planned(fixture, days: 40).filter { $0.questionnaireID == "tys-demo-monthly" }
        for line in ["tys reminders custom tys-demo-monthly 09:00", "tys reminders reset tys-demo-monthly"] {
            let refused = fixture.run(line)
            #expect(!refused.succeeded)
            #expect(refused.err.contains("The study sets the reminders of tys-demo-monthly"))
        }
        #expect(try Self.planned(fixture, days: 40).filter { $0.questionnaireID == "tys-demo-monthly" }.map(\.date) == before.map(\.date))
        #expect(before.count == 2)  // 2026-11-23 and 2026-12-23, at 18:00
    }

    @Test("malformed times and unknown questionnaires are one clear line each")
    func badInput() throws {
        let fixture = try Self.answered()
        for line in ["tys reminders custom tys-demo-daily 25:00", "tys reminders custom nope 09:00", "tys reminders day tys-demo-daily xyz off"] {
            let result = fixture.run(line)
            #expect(!result.succeeded)
            #expect(result.err.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines).split(separator: "\n").count == 1, "\(line): \(result.err)")
        }
    }

    // MARK: - The study's windows, gap, shift and days (issue 47)

    /// A daily questionnaire of a server study: four prompts a day, a 30-minute completion window.
    static func ema(_ schedule: QuestionnaireSchedule, version: Int = 1, changeable: Bool = false) -> QuestionnaireDefinition {
        var definition = QuestionnaireDefinition(
            id: "ema-mood", version: version, title: "Mood", kind: .repeating, schedule: schedule, scheduleChangeable: changeable,
            items: [QuestionnaireItem(label: "mood", text: "Mood?", required: true, element: .slider(SliderRange(min: 0, max: 100, step: 1)))])
        definition.completionWindowMinutes = 30
        return definition
    }

    static let weekdaysAndWeekends = [PromptWindow(days: ["mon", "tue", "wed", "thu", "fri"], from: "08:00", to: "22:00"),
                                      PromptWindow(days: ["sat", "sun"], from: "10:00", to: "22:00")]

    @Test("the study's windows per weekday and its gap place every prompt; the first and last day bound them; the device plans what the console previews")
    func studyWindows() throws {
        let fixture = try StressFixture()
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 4, startOnDay: 1, endOnDay: 9,
                                             windows: Self.weekdaysAndWeekends, minimumGapMinutes: 45)
        try fixture.joinServerStudy([(Self.ema(schedule), true)])
        let planned = try Self.planned(fixture, days: 14).filter { $0.questionnaireID == "ema-mood" }
        let joined = LocalDate(StressFixture.now, in: ModuleHarness.berlin)
        let days = Dictionary(grouping: planned, by: \.localDate)
        // Day 0 (the day of joining) has none; days 1 to 9 have four each; none after.
        #expect(days.keys.sorted() == (1...9).map { joined.adding(days: $0) })
        for (date, prompts) in days {
            let times = prompts.map(\.localTime.minutes).sorted()
            let earliest = date.weekday.rawValue >= 6 ? 600 : 480
            #expect(times.count == 4 && times.allSatisfy { (earliest...1320).contains($0) }, "\(date): \(times)")
            #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 45 }, "\(date): \(times)")
        }
        // The console's preview is drawn by the same algorithm: the device's rule, given the
        // preview's seed, plans the preview's times.
        let rule = try RandomReminders(count: 4, days: StudyQuestionnaire(
            studyID: "s", studyTitle: "S", module: "tys", isActive: true, joinedAt: StressFixture.now, definition: Self.ema(schedule)).studyDays,
            minimumGap: 45, seed: 42)
        let preview = try #require(schedule.preview(seed: 42, joinedOnDayNumber: joined.dayNumber, days: 14, completionWindowMinutes: 30))
        for day in preview {
            let device = day.dayAfterJoining >= 1 && day.dayAfterJoining <= 9 ? try rule.times(on: LocalDate(dayNumber: day.dayNumber)).map(\.minutes) : []
            #expect(day.minutes == device, "day \(day.dayAfterJoining)")
        }
    }

    @Test("without a gap, prompts are a completion window apart, so two are never open at once")
    func gapIsTheCompletionWindow() throws {
        let fixture = try StressFixture()
        try fixture.joinServerStudy([(Self.ema(QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 6)), true)])
        let planned = try Self.planned(fixture, days: 30).filter { $0.questionnaireID == "ema-mood" }
        let days = Dictionary(grouping: planned, by: \.localDate)
        // Thirty days from Monday 10:00: 29 whole ones with six prompts each, and the two part days.
        #expect(days.count == 31 && days.values.filter { $0.count == 6 }.count >= 29 && days.values.allSatisfy { $0.count <= 6 })
        for (_, prompts) in days {
            let times = prompts.map(\.date).sorted()
            #expect(zip(times, times.dropFirst()).allSatisfy { $1.timeIntervalSince($0) >= 30 * 60 })
        }
    }

    @Test("a participant moves a window only as far as the study allows; a new schedule at the next sync replaces a choice it no longer allows")
    func shiftWithinLimits() throws {
        let fixture = try StressFixture()
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 2, windows: Self.weekdaysAndWeekends,
                                             windowShiftMinutes: 120)
        try fixture.joinServerStudy([(Self.ema(schedule, changeable: true), true)])
        // Saturday's window is 10:00-22:00: 08:00 is two hours earlier, 07:30 too early.
        #expect(fixture.run("tys reminders window ema-mood sat 08:00 22:00").succeeded)
        let early = fixture.run("tys reminders window ema-mood sat 07:30 22:00")
        #expect(!early.succeeded && early.err.contains("07:30") && early.err.contains("120 minutes"), "\(early.err)")
        let custom = fixture.run("tys reminders custom ema-mood 06:00 12:00")
        #expect(!custom.succeeded && custom.err.contains("06:00"), "\(custom.err)")
        let saturday = LocalDate(year: 2026, month: 11, day: 28)
        var times = try Self.planned(fixture).filter { $0.localDate == saturday }.map(\.localTime.minutes)
        #expect(times.count == 2 && times.allSatisfy { (480...1320).contains($0) })

        // The study narrows the shift to 30 minutes: the stored 08:00 is no longer allowed, and the
        // study's own windows apply again (the prompts planned before are withdrawn by the plan's change).
        var narrower = schedule
        narrower.windowShiftMinutes = 30
        try fixture.joinServerStudy([(Self.ema(narrower, version: 2, changeable: true), true)])
        times = try Self.planned(fixture).filter { $0.localDate == saturday }.map(\.localTime.minutes)
        #expect(times.count == 2 && times.allSatisfy { (600...1320).contains($0) }, "\(times)")
    }

    @Test("a participant's fixed times keep the study's gap (here its 30-minute completion window), so two prompts are never open at once")
    func fixedTimesKeepTheGap() throws {
        let fixture = try StressFixture()
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 2, windows: Self.weekdaysAndWeekends,
                                             windowShiftMinutes: 120)
        try fixture.joinServerStudy([(Self.ema(schedule, changeable: true), true)])
        let before = try Self.planned(fixture).map(\.date)
        let close = fixture.run("tys reminders custom ema-mood 12:20 12:00")
        #expect(!close.succeeded && close.err.contains("20 minutes") && close.err.contains("at least 30"), "\(close.err)")
        #expect(close.err.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1, "\(close.err)")
        #expect(try Self.planned(fixture).map(\.date) == before, "nothing changed")
        #expect(fixture.run("tys reminders custom ema-mood 12:00 12:30").succeeded)
        let times = try Self.planned(fixture).map(\.localTime.minutes)
        #expect(Set(times) == [720, 750], "\(times)")
    }
}
