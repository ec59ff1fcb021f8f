import Foundation

/// What a module contributes to reminders: its rules, and how to tell whether a questionnaire
/// was already answered in a period (so the reminder can be skipped).
///
/// Returned by ``UNITIModule/reminderSource(_:)``. The module owns its rules (it keeps them in
/// its settings, see ``ReminderRuleStore``) and its answers; the core only plans, delivers and
/// logs what it delivered.
public struct ReminderSource: Sendable {
    public let rules: [ReminderRule]
    /// Whether `questionnaireID` has an answer inside the interval (local period start to end).
    public let isAnswered: @Sendable (_ questionnaireID: String, _ period: DateInterval) throws -> Bool

    public init(rules: [ReminderRule],
                isAnswered: @escaping @Sendable (_ questionnaireID: String, _ period: DateInterval) throws -> Bool = { _, _ in false }) {
        self.rules = rules
        self.isAnswered = isAnswered
    }

    /// A module without reminders.
    public static let none = ReminderSource(rules: [])
}

/// A module's reminder source, with who it belongs to.
public struct ModuleReminderSource: Sendable {
    public let module: ModuleDescriptor
    public let source: ReminderSource

    public init(module: ModuleDescriptor, source: ReminderSource) {
        self.module = module
        self.source = source
    }
}
