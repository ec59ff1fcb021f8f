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
    /// End on day N after joining, counted as ``startOnDay`` (absent: no end but ``end``).
    public var endOnDay: Int?
    /// When prompts of a daily schedule may come, per weekday (``PromptWindow``); a weekday no
    /// window names has none. Absent: 08:00–22:00 every day.
    public var windows: [PromptWindow]?
    /// The least minutes between two prompts of one day, at least the questionnaire's completion
    /// window so that prompts never overlap; absent: the completion window
    /// (``gap(completionWindowMinutes:)``).
    public var minimumGapMinutes: Int?
    /// How many minutes a participant may move the start or the end of a day's window, where the
    /// questionnaire's reminders may be changed (`scheduleChangeable`); absent: as far as they like.
    public var windowShiftMinutes: Int?

    public init(frequency: Frequency, timing: Timing, at: String? = nil, start: String? = nil,
                end: String? = nil, every: Int? = nil, amount: Int? = nil, startOnDay: Int? = nil,
                endOnDay: Int? = nil, windows: [PromptWindow]? = nil, minimumGapMinutes: Int? = nil, windowShiftMinutes: Int? = nil) {
        self.frequency = frequency
        self.timing = timing
        self.at = at
        self.start = start
        self.end = end
        self.every = every
        self.amount = amount
        self.startOnDay = startOnDay
        self.endOnDay = endOnDay
        self.windows = windows
        self.minimumGapMinutes = minimumGapMinutes
        self.windowShiftMinutes = windowShiftMinutes
    }
}

/// Parses and checks calendar dates written `YYYY-MM-DD` (definitions, date answers).
public enum CalendarDay {
    /// (year, month, day) when `text` is a real date in the Gregorian calendar.
    public static func parse(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              exists(year: year, month: month, day: day)
        else { return nil }
        return (year, month, day)
    }

    /// Whether the day is in the calendar (month 1 to 12, the day within the month's length).
    /// Without allocating: every time stamp of every uploaded or pulled sheet asks.
    public static func exists(year: Int, month: Int, day: Int) -> Bool {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let length = switch month {
        case 2: leap ? 29 : 28
        case 4, 6, 9, 11: 30
        case 1...12: 31
        default: 0
        }
        return day >= 1 && day <= length
    }

    public static func isValid(_ text: String) -> Bool { parse(text) != nil }
}
