/// One weekday of a planner: whether reminders may come that day and in which window.
///
/// The per-weekday "from / till / enabled" of the Track Your Stress notification planner
/// (thesis 5.3.9) and the weekday toggles and windows of Track Your Hearing (thesis 5.2.5,
/// "Erinnerungen zu Fragebögen").
public struct DayWindow: Sendable, Hashable, Codable {
    public let weekday: Weekday
    public var window: TimeWindow
    public var isEnabled: Bool

    public init(weekday: Weekday, window: TimeWindow = .standard, isEnabled: Bool = true) {
        self.weekday = weekday
        self.window = window
        self.isEnabled = isEnabled
    }

    /// All seven days, Monday first, with the same window.
    public static func week(_ window: TimeWindow = .standard) -> [DayWindow] {
        Weekday.allCases.map { DayWindow(weekday: $0, window: window) }
    }
}
