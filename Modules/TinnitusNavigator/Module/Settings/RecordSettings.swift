import Foundation
import UNITICore

/// The module's settings on this device (outlook, 8): how many days before a therapy's end to
/// remind, after how many days without any change to the record to ask once whether there is
/// something new, and at what time these reminders come.
struct RecordSettings: Sendable, Equatable {
    static let defaultTherapyReminderDays = 3
    static let defaultUpdateReminderDays = 30
    static let defaultReminderTime = TimeOfDay(hour: 9, minute: 0)
    static let dayRange = 1...365

    /// Days before a therapy's end; nil when off.
    var therapyReminderDays: Int?
    /// Days without a change to the record; nil when off.
    var updateReminderDays: Int?
    var reminderTime: TimeOfDay

    static func load(_ context: ModuleContext) throws -> RecordSettings {
        RecordSettings(
            therapyReminderDays: try days(context.moduleSetting("therapyReminderDays"), default: defaultTherapyReminderDays),
            updateReminderDays: try days(context.moduleSetting("updateReminderDays"), default: defaultUpdateReminderDays),
            reminderTime: try context.moduleSetting("reminderTime").flatMap { try? TimeOfDay(parsing: $0) } ?? defaultReminderTime)
    }

    /// A stored value: absent is the default, `off` is off, a number of days otherwise.
    private static func days(_ stored: String?, default value: Int) -> Int? {
        guard let stored else { return value }
        return stored == "off" ? nil : Int(stored).flatMap { dayRange.contains($0) ? $0 : nil } ?? value
    }

    /// What a person typed for a number of days: 1–365, or a word for off.
    static func parseDays(_ text: String) throws -> Int? {
        if let off = try? OnOff(parsing: text), off == .off { return nil }
        guard let days = Int(text.trimmingCharacters(in: .whitespaces)), dayRange.contains(days) else {
            throw UNITIError(L("tn.settings.error.days", ["text": text]))
        }
        return days
    }

    static func store(_ days: Int?, key: String, in context: ModuleContext) throws {
        try context.setModuleSetting(key, to: days.map(String.init) ?? "off")
    }
}
