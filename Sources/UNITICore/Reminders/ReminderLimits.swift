/// The reminder settings of Track Your Hearing (thesis 5.2.5 "Einstellungen" and 6.5 "Benachrichtigungen"): at
/// most 1–12 reminders a day, each weekday on or off, a window per weekday of at least four
/// hours with its start before its end, and sound on or off. The app's default was twelve
/// reminders between 08:00 and 22:00 on every day.
///
/// Limits are checked when they are made, so an invalid setting cannot exist; ``rule(...)``
/// turns them into an ordinary random rule the planner understands.
public struct ReminderLimits: Sendable, Hashable, Codable {
    public let maximumPerDay: Int
    public let days: [DayWindow]
    public let sound: Bool

    public static let allowedPerDay = 1...12
    /// Four hours, in minutes.
    public static let minimumWindowLength = 4 * 60

    public init(maximumPerDay: Int = 12, days: [DayWindow] = DayWindow.week(), sound: Bool = true) throws {
        guard Self.allowedPerDay.contains(maximumPerDay) else {
            throw UNITIError(L("reminders.error.limitCount", [
                "count": "\(maximumPerDay)", "min": "\(Self.allowedPerDay.lowerBound)", "max": "\(Self.allowedPerDay.upperBound)",
            ]))
        }
        for day in days where day.window.length < Self.minimumWindowLength {
            throw UNITIError(L("reminders.error.limitWindow", [
                "day": day.weekday.localizedName, "window": "\(day.window)", "hours": "\(Self.minimumWindowLength / 60)",
            ]))
        }
        self.maximumPerDay = maximumPerDay
        self.days = Weekday.allCases.map { weekday in days.last { $0.weekday == weekday } ?? DayWindow(weekday: weekday) }
        self.sound = sound
    }

    /// A copy with one weekday switched on or off.
    public func setting(_ enabled: Bool, on weekday: Weekday) throws -> ReminderLimits {
        var days = self.days
        days[weekday.rawValue - 1].isEnabled = enabled
        return try ReminderLimits(maximumPerDay: maximumPerDay, days: days, sound: sound)
    }

    /// A copy with another window on one weekday (validated: at least four hours).
    public func setting(_ window: TimeWindow, on weekday: Weekday) throws -> ReminderLimits {
        var days = self.days
        days[weekday.rawValue - 1].window = window
        return try ReminderLimits(maximumPerDay: maximumPerDay, days: days, sound: sound)
    }

    /// The rule these limits describe: `maximumPerDay` random reminders in each enabled day's
    /// window, 15 minutes apart (a four-hour window holds 17, so twelve always fit).
    public func rule(id: String, questionnaireID: String?, command: String, tone: String?,
                     seed: UInt64) throws -> ReminderRule {
        let random = try RandomReminders(count: maximumPerDay, days: days, seed: seed)
        return try ReminderRule(id: id, questionnaireID: questionnaireID, command: command, tone: tone,
                                sound: sound, cadence: .daily(DailyReminders(random: random)))
    }
}
