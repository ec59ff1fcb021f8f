/// A reminder at a fixed weekday and time, such as the "custom" notifications of the Track
/// Your Tinnitus thesis (6.2.5) and the Track Your Stress thesis (5.3.8).
public struct FixedReminderTime: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public let weekday: Weekday
    public let time: TimeOfDay

    public init(weekday: Weekday, time: TimeOfDay) {
        self.weekday = weekday
        self.time = time
    }

    /// Parses `WEEKDAY HH:MM`, e.g. `mon 08:30` or `Dienstag 19:00`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else {
            throw UNITIError(L("reminders.error.fixed", ["text": text]))
        }
        self.init(weekday: try Weekday(parsing: String(parts[0])), time: try TimeOfDay(parsing: String(parts[1])))
    }

    /// The same time on every day of the week.
    public static func everyDay(at time: TimeOfDay) -> [FixedReminderTime] {
        Weekday.allCases.map { FixedReminderTime(weekday: $0, time: time) }
    }

    public static func < (lhs: FixedReminderTime, rhs: FixedReminderTime) -> Bool {
        (lhs.weekday, lhs.time) < (rhs.weekday, rhs.time)
    }

    public var description: String { "\(weekday) \(time)" }
}
