import Foundation
@testable import UNITICore

/// A module for tests that declares reminder rules, as real modules will: a daily random
/// questionnaire, a weekly one and a monthly one, kept in its settings.
struct ReminderTestModule: UNITIModule {
    let descriptor = ModuleDescriptor(id: "rtm", name: "ReminderTestModule", programName: "reminder-test", version: "1.0")
    var commands: [any ShellCommand.Type] { [] }
    /// Questionnaires answered, and when.
    let answers: LockedValue<[(String, Date)]>
    let defaultRules: [ReminderRule]

    init(rules: [ReminderRule], answers: [(String, Date)] = []) {
        self.defaultRules = rules
        self.answers = LockedValue(answers)
    }

    func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
        let rules = try ReminderRuleStore().load(context) ?? defaultRules
        let answers = self.answers
        return ReminderSource(rules: rules) { questionnaire, period in
            answers.value.contains { $0.0 == questionnaire && period.contains($0.1) && $0.1 < period.end }
        }
    }
}

enum ReminderFixtures {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let utc = TimeZone(identifier: "UTC")!

    static func date(_ text: String, in zone: TimeZone = berlin) -> Date {
        // "2026-03-29 08:00"
        let parts = text.split(separator: " ")
        let day = try! LocalDate(parsing: String(parts[0]))
        return day.instant(at: try! TimeOfDay(parsing: String(parts[1])), in: zone)
    }

    static func time(_ text: String) -> TimeOfDay { try! TimeOfDay(parsing: text) }

    static func window(_ text: String) -> TimeWindow { try! TimeWindow(parsing: text) }

    /// A fresh data directory with the core's tables and the module's services.
    static func services(clock: any WallClock, modules: [any UNITIModule] = []) throws -> CoreServices {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-reminders-\(UUID().uuidString)")
        let directory = DataDirectory(path: folder.path)
        try directory.create()
        let registry = try ModuleRegistry(modules, reservedNames: [], commandsAtTopLevel: false)
        let database = try AppDatabase(path: directory.databasePath, migrationSets: registry.migrationSets)
        let (console, _) = Console.capturing()
        return CoreServices(dataDirectory: directory, database: database, console: console,
                            input: ScriptedInput([]), clock: clock, random: SeededRandomSource(seed: 7))
    }

    /// A service over one module, the way the shell builds it.
    static func service(_ module: ReminderTestModule, services: CoreServices) -> ReminderService {
        ReminderService(database: services.database, clock: services.clock) {
            [ModuleReminderSource(module: module.descriptor,
                                  source: try module.reminderSource(ModuleContext(services: services, module: module.descriptor)))]
        }
    }
}

/// Records what it delivered instead of printing.
final class RecordingNotifier: ReminderNotifier, @unchecked Sendable {
    let delivered = LockedValue<[PlannedReminder]>([])
    func deliver(_ reminder: PlannedReminder) -> String {
        delivered.withValue { $0.append(reminder) }
        return "test"
    }
}
