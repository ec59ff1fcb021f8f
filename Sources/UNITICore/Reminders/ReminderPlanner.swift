import Foundation

/// Turns rules into concrete reminders for a span of time, in one time zone.
///
/// Every kind of rule of the theses goes through here: random times within windows with a
/// minimum gap (Track Your Tinnitus 5.1), fixed weekday times, the per-questionnaire planners of
/// Track Your Stress (daily / weekly / monthly) and the limits of Track Your Hearing (which
/// become random rules). Times are wall-clock times in ``timeZone``; see
/// ``LocalDate/instant(at:in:)`` for days when the clocks change.
public struct ReminderPlanner: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The reminders of `sources` due in `[start, end)`, sorted by time, without the ones whose
    /// questionnaire was already answered in its period.
    public func plan(_ sources: [ModuleReminderSource], from start: Date, to end: Date) throws -> [PlannedReminder] {
        var all: [PlannedReminder] = []
        for source in sources {
            all += try plan(source, from: start, to: end)
        }
        return all.sorted { ($0.date, $0.id) < ($1.date, $1.id) }
    }

    public func plan(_ source: ModuleReminderSource, from start: Date, to end: Date) throws -> [PlannedReminder] {
        guard start < end else { return [] }
        let first = LocalDate(start, in: timeZone)
        let last = LocalDate(end, in: timeZone)
        let rules = source.source.rules
        var answered: [String: Bool] = [:]  // one lookup per questionnaire and period
        var seen = Set<String>()            // rule and instant: a DST shift may land on another time
        var result: [PlannedReminder] = []
        for dayNumber in first.dayNumber...last.dayNumber {
            let date = LocalDate(dayNumber: dayNumber)
            let offset = date.steadyOffset(in: timeZone)  // the zone is asked once per day, not per rule
            for rule in rules {
                if let days = rule.activeDays, !days.isActive(on: date) { continue }
                let times = try rule.cadence.times(on: date)
                guard !times.isEmpty else { continue }
                var pairs = Array(zip(times, date.instants(at: times, in: timeZone, steadyOffset: offset)))
                if offset == nil, case .daily(let daily) = rule.cadence, daily.fixed.isEmpty, let gap = daily.random?.minimumGap, gap > 0 {
                    pairs = Self.keepingGap(pairs, minutes: gap)
                }
                for (time, instant) in pairs {
                    guard instant >= start, instant < end else { continue }
                    if offset == nil, !seen.insert("\(rule.id)|\(instant.timeIntervalSince1970)").inserted { continue }
                    if rule.skipWhenAnswered, let questionnaire = rule.questionnaireID {
                        let period = rule.cadence.period.dates(containing: date)
                        let key = "\(questionnaire)|\(period.start.dayNumber)"
                        let done = try answered[key] ?? source.source.isAnswered(questionnaire, DateInterval(
                            start: period.start.startInstant(in: timeZone), end: period.end.startInstant(in: timeZone)))
                        answered[key] = done
                        if done { continue }
                    }
                    result.append(PlannedReminder(
                        moduleID: source.module.id.rawValue, moduleName: source.module.name, ruleID: rule.id,
                        questionnaireID: rule.questionnaireID, date: instant, localDate: date, localTime: time,
                        command: rule.command, tone: rule.tone, sound: rule.sound, message: rule.message))
                }
            }
        }
        return result
    }

    /// On a day the clocks change, random times in `pairs` that lie closer than `minutes` in real
    /// time, the later of each such pair dropped: a wall time the clocks skip (02:30 when they go
    /// from 02:00 to 03:00) is read an hour later (``LocalDate/instant(at:in:)``) and may land
    /// beside another prompt, and two prompts must never be open at once.
    static func keepingGap(_ pairs: [(TimeOfDay, Date)], minutes: Int) -> [(TimeOfDay, Date)] {
        var kept: [(TimeOfDay, Date)] = []
        for pair in pairs.sorted(by: { $0.1 < $1.1 }) where kept.last.map({ pair.1.timeIntervalSince($0.1) >= Double(minutes * 60) }) ?? true {
            kept.append(pair)
        }
        return kept
    }
}
