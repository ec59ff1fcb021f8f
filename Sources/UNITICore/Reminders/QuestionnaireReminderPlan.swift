/// The notification planner of one questionnaire, as in the Track Your Stress thesis (5.3.7–
/// 5.3.9, 5.4.6, 7.2.6): a daily questionnaire has per-weekday from / till / enabled and an
/// amount, either at random times ("standard") or at fixed times ("custom"); a weekly or monthly
/// questionnaire has exactly one reminder whose time may change; a study may lock the schedule.
///
/// This builds the matching ``ReminderRule``; later changes go through the rule's editors,
/// which keep the same guarantees (validated, refused while locked, nothing half-changed).
public struct QuestionnaireReminderPlan: Sendable, Hashable {
    /// How often the questionnaire is due.
    public enum Frequency: Sendable, Hashable {
        case daily
        case weekly(Weekday)
        /// On this day of each month (the last day in shorter months).
        case monthly(day: Int)
    }

    /// How a daily questionnaire's reminders are placed.
    public enum Option: Sendable, Hashable {
        /// `amount` random times inside each enabled day's window, at least ``minimumGap`` minutes apart.
        case random(amount: Int)
        /// The same times on every enabled day.
        case fixed([TimeOfDay])
    }

    public let questionnaireID: String
    public let command: String
    public let frequency: Frequency
    public let option: Option
    public let days: [DayWindow]
    /// The time of a weekly or monthly reminder.
    public let time: TimeOfDay
    public let lockReason: String?
    public let tone: String?
    /// Minutes between two random reminders of one day: the study's gap
    /// (``StudyQuestionnaire/promptGap``), 15 in the theses.
    public let minimumGap: Int

    public init(questionnaireID: String, command: String, frequency: Frequency, option: Option = .random(amount: 1),
                days: [DayWindow] = DayWindow.week(), time: TimeOfDay = TimeOfDay(hour: 18, minute: 0),
                lockReason: String? = nil, tone: String? = nil, minimumGap: Int = RandomReminders.standardGap) {
        self.questionnaireID = questionnaireID
        self.command = command
        self.frequency = frequency
        self.option = option
        self.days = days
        self.time = time
        self.lockReason = lockReason
        self.tone = tone
        self.minimumGap = minimumGap
    }

    /// The rule, with the seed for random times drawn from `random`.
    /// - Throws: when the amount does not fit a window, a fixed time repeats, or a day of the
    ///   month is out of range.
    public func rule(random: any RandomSource) throws -> ReminderRule {
        let cadence: ReminderCadence
        switch frequency {
        case .weekly(let weekday):
            cadence = .weekly(WeeklyReminder(weekday: weekday, time: time))
        case .monthly(let day):
            cadence = .monthly(try MonthlyReminder(day: day, time: time))
        case .daily:
            switch option {
            case .random(let amount):
                cadence = .daily(try DailyReminders(random: RandomReminders(count: amount, days: days, minimumGap: minimumGap, random: random)))
            case .fixed(let times):
                let enabled = days.filter(\.isEnabled).map(\.weekday)
                cadence = .daily(try DailyReminders(fixed: enabled.flatMap { day in
                    times.map { FixedReminderTime(weekday: day, time: $0) }
                }))
            }
        }
        return try ReminderRule(id: questionnaireID, questionnaireID: questionnaireID, command: command, tone: tone,
                                cadence: cadence, lockReason: lockReason)
    }
}
