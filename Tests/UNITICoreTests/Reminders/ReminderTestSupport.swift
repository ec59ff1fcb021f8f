import Foundation
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// A module for tests that declares reminder rules, as real modules will: a daily random
/// questionnaire, a weekly one and a monthly one, kept in its settings.
struct ReminderTestModule: UNITIModule, ReminderProviding {
    let descriptor = ModuleDescriptor(id: ModuleID(known: "rtm"), name: "ReminderTestModule", programName: "reminder-test", version: "1.0")
    func commands(for program: ProgramKind) -> [any ShellCommand.Type] { [] }
    var migrations: [ModuleMigration] { [] }
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

    /// A fresh data directory with the core's tables and the modules', on `clock`.
    static func harness(clock: FixedClock, modules: [any UNITIModule] = []) throws -> ModuleHarness {
        try ModuleHarness(modules, clock: clock, seed: 7)
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
