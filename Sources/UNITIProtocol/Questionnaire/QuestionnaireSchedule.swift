import Foundation

/// When a questionnaire is due, after the schedule table of the Track Your Stress thesis
/// (5.3.3.1): a `fixed` schedule names one date (`at`); a `between` schedule runs from `start`
/// to `end`, asks `amount` times per period, repeats every `every` periods, and begins only on
/// day `startOnDay` after the person joined (0 = at once).
///
/// Dates are calendar dates `YYYY-MM-DD` in the person's local time. The reminder planner
/// turns a schedule into reminder times; this type only describes it.
public struct QuestionnaireSchedule: Codable, Hashable, Sendable {
    public enum Frequency: String, Codable, Hashable, Sendable, CaseIterable {
        case daily, weekly, monthly
    }

    public enum Timing: String, Codable, Hashable, Sendable, CaseIterable {
        case fixed, between
    }

    public var frequency: Frequency
    public var timing: Timing
    /// The date of a `fixed` schedule.
    public var at: String?
    /// First and last date of a `between` schedule (both optional: open-ended).
    public var start: String?
    public var end: String?
    /// Repeat every N periods (default 1).
    public var every: Int?
    /// How many times per period (default 1).
    public var amount: Int?
    /// Begin on day N after joining (default 0).
    public var startOnDay: Int?

    public init(frequency: Frequency, timing: Timing, at: String? = nil, start: String? = nil,
                end: String? = nil, every: Int? = nil, amount: Int? = nil, startOnDay: Int? = nil) {
        self.frequency = frequency
        self.timing = timing
        self.at = at
        self.start = start
        self.end = end
        self.every = every
        self.amount = amount
        self.startOnDay = startOnDay
    }
}

/// Parses and checks calendar dates written `YYYY-MM-DD` (definitions, date answers).
public enum CalendarDay {
    /// (year, month, day) when `text` is a real date in the Gregorian calendar.
    public static func parse(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1
        else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[month - 1] else { return nil }
        return (year, month, day)
    }

    public static func isValid(_ text: String) -> Bool { parse(text) != nil }
}
