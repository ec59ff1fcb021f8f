import Foundation

/// Keeps a module's reminder rules in the module's own settings (`<module>.reminders.rules`,
/// JSON), so that what a person sets belongs to the module and travels with its settings.
///
/// Saving validates every rule first and writes all of them at once; a refused save leaves
/// the stored rules as they were.
public struct ReminderRuleStore: Sendable {
    public static let settingKey = "reminders.rules"

    public init() {}

    /// The stored rules, or nil when the module has not stored any yet (use its defaults).
    public func load(_ context: ModuleContext) throws -> [ReminderRule]? {
        guard let text = try context.moduleSetting(Self.settingKey) else { return nil }
        do {
            return try JSONDecoder().decode([ReminderRule].self, from: Data(text.utf8))
        } catch let error as UNITIError {
            throw error
        } catch {
            throw UNITIError(L("reminders.error.storedRules", ["module": context.module.id.rawValue]))
        }
    }

    public func save(_ rules: [ReminderRule], _ context: ModuleContext) throws {
        var ids = Set<String>()
        for rule in rules {
            try rule.cadence.validate()
            guard ids.insert(rule.id).inserted else {
                throw UNITIError(L("reminders.error.duplicateRule", ["rule": rule.id]))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(rules)
        try context.setModuleSetting(Self.settingKey, to: String(decoding: data, as: UTF8.self))
    }
}
