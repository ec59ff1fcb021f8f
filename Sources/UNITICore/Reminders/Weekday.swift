import Foundation

/// A day of the week, numbered as ISO 8601 does (Monday = 1 ... Sunday = 7), because the
/// theses' planners all start their week on Monday.
public enum Weekday: Int, Sendable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The English three-letter name (`mon`), the form used in settings and JSON.
    public var description: String { Self.shortNames[rawValue - 1] }

    /// The day's name in the current language (string table key `reminders.weekday.mon`, ...).
    public var localizedName: String { L("reminders.weekday.\(description)") }

    /// Parses a weekday name in English or German, long or short, in any case:
    /// `mon`, `monday`, `mo`, `montag`, `tue`, `tuesday`, `di`, `dienstag`, ...
    public init(parsing text: String) throws {
        let key = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let day = Self.names[key] else {
            throw UNITIError(L("reminders.error.weekday", ["text": text]))
        }
        self = day
    }

    private static let shortNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    private static let names: [String: Weekday] = {
        let spellings: [Weekday: [String]] = [
            .monday: ["mon", "monday", "mo", "montag"],
            .tuesday: ["tue", "tues", "tuesday", "di", "dienstag"],
            .wednesday: ["wed", "wednesday", "mi", "mittwoch"],
            .thursday: ["thu", "thur", "thurs", "thursday", "do", "donnerstag"],
            .friday: ["fri", "friday", "fr", "freitag"],
            .saturday: ["sat", "saturday", "sa", "samstag", "sonnabend"],
            .sunday: ["sun", "sunday", "so", "sonntag"],
        ]
        var table: [String: Weekday] = [:]
        for (day, words) in spellings {
            for word in words { table[word] = day }
        }
        return table
    }()
}
