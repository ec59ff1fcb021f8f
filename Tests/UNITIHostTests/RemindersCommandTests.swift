import Foundation
import Testing
@testable import UNITICore
@testable import UNITIHost
import UNITIProtocol
import UNITITesting

/// `reminders list|run|export` driven through the shell, with a module that declares rules.
@Suite("reminders command", .isolatedLanguage, .timeLimit(.minutes(10)))
struct RemindersCommandTests {
    /// Stands in for a real module: id `tyt` so the default study enables it.
    struct RemindingModule: UNITIModule, ReminderProviding {
        let descriptor = ModuleDescriptor(.tyt, version: "0")
        func commands(for program: ProgramKind) -> [any ShellCommand.Type] { [] }
        var migrations: [ModuleMigration] { [] }
        func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
            let rule = try ReminderRule(id: "ema", questionnaireID: "tyt-ema", command: "tyt fill", cadence: .daily(
                DailyReminders(random: RandomReminders(count: 4, seed: 9),
                               fixed: FixedReminderTime.everyDay(at: TimeOfDay(hour: 7, minute: 30)))))
            return ReminderSource(rules: [rule])
        }
    }

    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    func shell(at date: Date) throws -> (Shell, CapturedOutput, String) {
        let harness = try ModuleHarness(RemindingModule(), now: date, timeZone: Self.berlin, seed: 1)
        harnesses.withValue { $0.append(harness) }
        return (harness.shell, harness.output, harness.directory.path)
    }

    /// Keeps each test's harness (and its data directory) alive until the suite value goes away.
    private let harnesses = LockedValue<[ModuleHarness]>([])

    @Test("list --json shows what the module plans, per day, in the clock's zone")
    func listJSON() throws {
        let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 0, minute: 0), in: Self.berlin)
        let (shell, output, _) = try shell(at: now)
        #expect(shell.execute(line: "reminders list --days 3 --json") == .success)
        let object = try JSONSerialization.jsonObject(with: Data(output.out.utf8)) as! [String: Any]
        let reminders = object["reminders"] as! [[String: Any]]
        #expect(reminders.count == 3 * 5)
        #expect(object["timeZone"] as? String == "Europe/Berlin")
        #expect(reminders.allSatisfy { $0["command"] as? String == "tyt fill" && $0["moduleID"] as? String == "tyt" })
        #expect(shell.execute(line: "reminders list --days 0") == .failure)
    }

    @Test("list in text shows one line per reminder with its time and command")
    func listText() throws {
        let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 0, minute: 0), in: Self.berlin)
        let (shell, output, _) = try shell(at: now)
        // `list` is the default subcommand.
        #expect(shell.execute(line: "reminders --days 1") == .success)
        let lines = output.out.split(separator: "\n").filter { $0.contains("tyt fill") }
        #expect(lines.count == 5)
        #expect(lines.first?.contains("2026-11-23  07:30") == true)
    }

    @Test("export writes an iCalendar file with one event per reminder")
    func export() throws {
        let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 0, minute: 0), in: Self.berlin)
        let (shell, output, folder) = try shell(at: now)
        let path = folder + "/reminders.ics"
        #expect(shell.execute(line: "reminders export \(path) --days 7") == .success)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "BEGIN:VEVENT").count - 1 == 35)
        #expect(output.out.contains("35"))
        #expect(shell.execute(line: "reminders export \(folder)/reminders.txt") == .failure)
    }

    @Test("modules the person's studies do not enable plan nothing")
    func disabledModulesAreSilent() throws {
        struct Other: UNITIModule, ReminderProviding {
            let descriptor = ModuleDescriptor(id: ModuleID(known: "zzz"), name: "Other", programName: "other", version: "0")
            func commands(for program: ProgramKind) -> [any ShellCommand.Type] { [] }
            var migrations: [ModuleMigration] { [] }
            func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
                try RemindingModule().reminderSource(context)
            }
        }
        let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 0, minute: 0), in: Self.berlin)
        let (shell, _, _) = try shell(at: now)
        let registry = try ModuleRegistry([RemindingModule(), Other()], program: .integrated, reservedNames: [])
        let both = Shell(registry: registry, services: shell.services, program: shell.program, hostCommands: shell.hostCommands)
        let planned = try both.reminderService().planned(from: now, to: now.addingTimeInterval(86_400))
        #expect(planned.count == 5)
        #expect(planned.allSatisfy { $0.moduleID == "tyt" })
    }

    @Test("run delivers a due reminder once on the terminal and stops at --count", .timeLimit(.minutes(10)))
    func runDelivers() throws {
        let start = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 7, minute: 0), in: Self.berlin)
        let (shell, output, _) = try shell(at: start)
        // The rule held from 07:00; at 07:31 its 07:30 reminder is due.
        try shell.reminderService().noteRules()
        try #require(shell.services.clock as? FixedClock).advance(by: 31 * 60)
        #expect(shell.execute(line: "reminders run --count 1 --terminal") == .success)
        #expect(output.out.contains("TrackYourTinnitus") && output.out.contains("`tyt fill`"))
        #expect(output.out.split(separator: "\n").count == 1)
        #expect(shell.execute(line: "reminders run --count 0") == .failure)
        #expect(shell.execute(line: "reminders run --for -5") == .failure)
    }
}
