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

    @Test("standard reminders: the schedule's amount per day inside the windows, 15 minutes apart; weekly and monthly once")
    func standard() throws {
        let fixture = try Self.answered()
        let planned = try Self.planned(fixture)
        let daily = planned.filter { $0.questionnaireID == "tys-demo-daily" }
        let tomorrow = LocalDate(year: 2026, month: 11, day: 24)
        let times = daily.filter { $0.localDate == tomorrow }.map(\.localTime)
        #expect(times.count == 2)
        #expect(times.allSatisfy { $0 >= TimeOfDay(hour: 8, minute: 0) && $0 <= TimeOfDay(hour: 22, minute: 0) })
        #expect(times[1].minutes - times[0].minutes >= 15)
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
        #expect(fixture.run("tys reminders window tys-demo-daily mon 08:00 09:00").succeeded)
        let refused = fixture.run("tys reminders standard tys-demo-daily 6")
        #expect(!refused.succeeded)
        #expect(refused.err.contains("5"))
        let shown = try JSONSerialization.jsonObject(with: Data(fixture.run("tys reminders show tys-demo-daily --json").out.utf8)) as! [[String: Any]]
        #expect(shown.first?["perDay"] as? Int == 2)
        #expect(fixture.run("tys reminders standard tys-demo-daily 4").succeeded)
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
}
