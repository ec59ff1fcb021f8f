import UNITIProtocol

/// The calendar of one person's schedule for one questionnaire (Track Your Stress thesis,
/// 5.3.3.1): from which day it runs (the schedule's `start`, but not before day `startOnDay`
/// after the person joined the study), until which day (`end`), in which periods (a day, a week
/// from Monday, a calendar month; every `every`-th period counted from the first one) and how
/// many answers a period asks for (`amount`). A `fixed` schedule runs on its one date `at`.
///
/// Pure date arithmetic on ``LocalDate`` (no time zone: the caller turns "now" into a local
/// date), shared by the questionnaire states and the reminder rules so that both agree.
public struct ScheduleCalendar: Sendable, Hashable {
    public enum Period: Sendable, Hashable {
        case day, week, month
    }

    public let period: Period
    /// The first day the questionnaire runs; periods are counted from the one that contains it.
    public let firstDay: LocalDate
    /// The last day it runs, if the schedule ends.
    public let lastDay: LocalDate?
    /// Answers asked for per period, at least 1.
    public let amount: Int
    /// Only every n-th period counts, n ≥ 1.
    public let every: Int

    /// - Parameter joinedOn: the local date the person joined the study.
    public init(_ schedule: QuestionnaireSchedule, joinedOn: LocalDate) {
        switch schedule.frequency {
        case .daily: period = .day
        case .weekly: period = .week
        case .monthly: period = .month
        }
        amount = max(1, schedule.amount ?? 1)
        every = max(1, schedule.every ?? 1)
        let joined = joinedOn.adding(days: max(0, schedule.startOnDay ?? 0))
        if schedule.timing == .fixed, let at = schedule.at.flatMap({ try? LocalDate(parsing: $0) }) {
            // One date; a person who joins later than that date never gets it.
            firstDay = max(at, joined)
            lastDay = at
            return
        }
        let start = schedule.start.flatMap { try? LocalDate(parsing: $0) }
        firstDay = max(start ?? joined, joined)
        let end = schedule.end.flatMap { try? LocalDate(parsing: $0) }
        let endOfStudyDays = schedule.endOnDay.map { joinedOn.adding(days: max(0, $0)) }
        lastDay = [end, endOfStudyDays].compactMap { $0 }.min()
    }

    public enum Phase: Sendable, Hashable {
        case notStarted(LocalDate)
        case running
        case ended(LocalDate)
    }

    public func phase(on date: LocalDate) -> Phase {
        if let lastDay, firstDay > lastDay { return .ended(lastDay) }
        if date < firstDay { return .notStarted(firstDay) }
        if let lastDay, date > lastDay { return .ended(lastDay) }
        return .running
    }

    /// The period containing `date` as `[start, end)` local dates, clipped to the schedule's
    /// first and last day; nil when the date lies outside the schedule or in a period that
    /// `every` skips.
    public func activePeriod(containing date: LocalDate) -> (start: LocalDate, end: LocalDate)? {
        guard phase(on: date) == .running else { return nil }
        guard index(of: date) % every == 0 else { return nil }
        let (start, end) = bounds(of: date)
        let clippedEnd = lastDay.map { min(end, $0.adding(days: 1)) } ?? end
        return (max(start, firstDay), clippedEnd)
    }

    /// The first day on or after `date` that lies in an active period (nil when the schedule
    /// has ended by then).
    public func nextActiveDay(onOrAfter date: LocalDate) -> LocalDate? {
        var day = max(date, firstDay)
        // At most `every` periods ahead; a month is at most 31 days.
        for _ in 0..<(every * 31 + 1) {
            if let lastDay, day > lastDay { return nil }
            if activePeriod(containing: day) != nil { return day }
            day = bounds(of: day).end
        }
        return nil
    }

    /// Whether `date` lies in an active period (reminders are planned only on such days).
    public func isActive(on date: LocalDate) -> Bool { activePeriod(containing: date) != nil }

    private func bounds(of date: LocalDate) -> (start: LocalDate, end: LocalDate) {
        switch period {
        case .day: return (date, date.adding(days: 1))
        case .week: return (date.startOfWeek, date.startOfWeek.adding(days: 7))
        case .month: return (date.startOfMonth, date.startOfNextMonth)
        }
    }

    /// The number of the period containing `date`, counted from the first day's period (0).
    private func index(of date: LocalDate) -> Int {
        switch period {
        case .day: return date.dayNumber - firstDay.dayNumber
        case .week: return (date.startOfWeek.dayNumber - firstDay.startOfWeek.dayNumber) / 7
        case .month: return (date.year * 12 + date.month) - (firstDay.year * 12 + firstDay.month)
        }
    }
}
