/// When a rule reminds: several times a day (random and/or fixed), once a week, or once a month.
///
/// Weekly and monthly questionnaires of Track Your Stress (thesis 5.4.6, 7.2.6) have exactly one
/// reminder whose time may change; the types below make a second one impossible to express.
public enum ReminderCadence: Sendable, Hashable, Codable {
    case daily(DailyReminders)
    case weekly(WeeklyReminder)
    case monthly(MonthlyReminder)

    /// The period in which one answer counts as "done" for this cadence.
    public var period: AnswerPeriod {
        switch self {
        case .daily: return .day
        case .weekly: return .week
        case .monthly: return .month
        }
    }

    public func validate() throws {
        switch self {
        case .daily(let daily): try daily.validate()
        case .monthly(let monthly): _ = try MonthlyReminder(day: monthly.day, time: monthly.time)
        case .weekly: break
        }
    }

    // Stored as `{"daily": {...}}`, `{"weekly": {...}}` or `{"monthly": {...}}`: the form kept in
    // module settings, so it is spelled out rather than left to the compiler's enum encoding.
    private enum CodingKeys: String, CodingKey { case daily, weekly, monthly }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let daily = try container.decodeIfPresent(DailyReminders.self, forKey: .daily) {
            self = .daily(daily)
        } else if let weekly = try container.decodeIfPresent(WeeklyReminder.self, forKey: .weekly) {
            self = .weekly(weekly)
        } else if let monthly = try container.decodeIfPresent(MonthlyReminder.self, forKey: .monthly) {
            self = .monthly(monthly)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected daily, weekly or monthly"))
        }
        try validate()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .daily(let daily): try container.encode(daily, forKey: .daily)
        case .weekly(let weekly): try container.encode(weekly, forKey: .weekly)
        case .monthly(let monthly): try container.encode(monthly, forKey: .monthly)
        }
    }

    /// The wall-clock times of this cadence on `date`, sorted, without duplicates.
    public func times(on date: LocalDate) throws -> [TimeOfDay] {
        switch self {
        case .daily(let daily):
            return try daily.times(on: date)
        case .weekly(let weekly):
            return date.weekday == weekly.weekday ? [weekly.time] : []
        case .monthly(let monthly):
            let lastDay = LocalDate.daysIn(year: date.year, month: date.month)
            return date.day == min(monthly.day, lastDay) ? [monthly.time] : []
        }
    }
}

/// Daily reminders: random ones inside windows, fixed weekday+time entries, or both.
///
/// Combining follows the Track Your Tinnitus thesis (requirement 13: standard and custom
/// notifications may be combined). Fixed entries are kept unique; when a random time falls on
/// the same minute as a fixed entry, the two are one reminder.
public struct DailyReminders: Sendable, Hashable, Codable {
    public var random: RandomReminders?
    public private(set) var fixed: [FixedReminderTime]

    public init(random: RandomReminders? = nil, fixed: [FixedReminderTime] = []) throws {
        self.random = random
        self.fixed = []
        for entry in fixed { try add(entry) }
    }

    /// Adds a fixed entry; the same weekday and time twice is refused.
    public mutating func add(_ entry: FixedReminderTime) throws {
        guard !fixed.contains(entry) else {
            throw UNITIError(L("reminders.error.duplicate", ["entry": entry.weekday.localizedName + " " + "\(entry.time)"]))
        }
        fixed.append(entry)
        fixed.sort()
    }

    /// Removes a fixed entry; one that does not exist is an error (nothing changes).
    public mutating func remove(_ entry: FixedReminderTime) throws {
        guard let index = fixed.firstIndex(of: entry) else {
            throw UNITIError(L("reminders.error.noSuchEntry", ["entry": entry.weekday.localizedName + " " + "\(entry.time)"]))
        }
        fixed.remove(at: index)
    }

    public func validate() throws {
        try random?.validate()
        guard Set(fixed).count == fixed.count else {
            throw UNITIError(L("reminders.error.duplicate", ["entry": "\(fixed)"]))
        }
    }

    public func times(on date: LocalDate) throws -> [TimeOfDay] {
        var times = Set(try random?.times(on: date) ?? [])
        for entry in fixed where entry.weekday == date.weekday { times.insert(entry.time) }
        return times.sorted()
    }
}

/// The one reminder of a weekly questionnaire.
public struct WeeklyReminder: Sendable, Hashable, Codable {
    public let weekday: Weekday
    public var time: TimeOfDay

    public init(weekday: Weekday, time: TimeOfDay) {
        self.weekday = weekday
        self.time = time
    }
}

/// The one reminder of a monthly questionnaire: on `day` of each month (the last day in a
/// shorter month), at `time`.
public struct MonthlyReminder: Sendable, Hashable, Codable {
    public let day: Int
    public var time: TimeOfDay

    public init(day: Int, time: TimeOfDay) throws {
        guard (1...31).contains(day) else {
            throw UNITIError(L("reminders.error.monthDay", ["day": "\(day)"]))
        }
        self.day = day
        self.time = time
    }
}

/// The span in which one answer to a questionnaire makes its further reminders unnecessary.
public enum AnswerPeriod: String, Sendable, Codable {
    case day, week, month

    /// The local dates `[start, end)` of the period that contains `date`.
    public func dates(containing date: LocalDate) -> (start: LocalDate, end: LocalDate) {
        switch self {
        case .day: return (date, date.adding(days: 1))
        case .week: return (date.startOfWeek, date.startOfWeek.adding(days: 7))
        case .month: return (date.startOfMonth, date.startOfNextMonth)
        }
    }
}
