import Foundation
import UNITIProtocol

/// Plans the reminders of every enabled module and hands out the ones that are due, each once.
///
/// The host creates one per process with a closure that asks each module of the program for its
/// ``ReminderSource`` (modules may change their rules at any time, so sources are asked anew
/// when planning; a disabled module answers with no rules). Used by the shell before each
/// prompt (``ReminderMonitor``), by the `reminders run` daemon (``ReminderDaemon``), and by
/// `reminders list` / `export`. A reminder from before its rule held on this device is never
/// planned (``ReminderRuleHistory``).
public final class ReminderService: Sendable {
    public let clock: any WallClock
    public let log: ReminderLog
    public let history: ReminderRuleHistory
    /// Every prompt's lifecycle as research data (planned, delivered, withdrawn, expired, ...).
    public let prompts: PromptLog
    let sources: @Sendable () throws -> [ModuleReminderSource]
    /// How late a reminder may still be delivered: one missed while no shell ran for days is
    /// not worth announcing; one from twenty minutes ago is.
    public let lateness: TimeInterval

    public init(database: AppDatabase, clock: any WallClock, lateness: TimeInterval = 3600,
                sources: @escaping @Sendable () throws -> [ModuleReminderSource]) {
        self.clock = clock
        self.log = ReminderLog(database: database)
        self.history = ReminderRuleHistory(database: database)
        self.prompts = PromptLog(database: database, clock: clock)
        self.lateness = lateness
        self.sources = sources
    }

    public var timeZone: TimeZone { clock.timeZone }

    /// Everything planned in `[start, end)` (reading only: a rule not seen before holds from now).
    public func planned(from start: Date, to end: Date) throws -> [PlannedReminder] {
        let sources = try sources()
        return try plan(sources, from: start, to: end, holding: history.since(sources), now: clock.now)
    }

    /// Notes the rules in force now (``ReminderRuleHistory``): the shell calls this after a
    /// command that wrote something, so a rule switched off and on again by two scripts is seen
    /// both times. Writes only when a rule came, changed or went.
    public func noteRules() throws {
        try history.see(sources(), at: clock.now)
    }

    /// The reminders of `sources` in `[start, end)` whose rule held at their time.
    private func plan(_ sources: [ModuleReminderSource], from start: Date, to end: Date,
                      holding since: [ReminderRuleHistory.Key: Date], now: Date) throws -> [PlannedReminder] {
        return try ReminderPlanner(timeZone: timeZone).plan(sources, from: start, to: end).filter {
            $0.date >= since[ReminderRuleHistory.Key(moduleID: $0.moduleID, ruleID: $0.ruleID)] ?? now
        }
    }

    /// Reminders due at `now` (not later than ``lateness``, and not from before their rule held)
    /// that were not delivered yet, and the time of the next reminder after `now` within
    /// `horizon` (nil when none).
    public func pending(at now: Date, horizon: TimeInterval = 2 * 86_400) throws -> (due: [PlannedReminder], next: Date?) {
        let sources = try sources()
        let since = try history.see(sources, at: now)
        let planned = try plan(sources, from: now.addingTimeInterval(-lateness), to: now.addingTimeInterval(horizon),
                               holding: since, now: now)
        // The plan ahead is research data too: prompts new to it are planned, prompts gone from it withdrawn.
        try prompts.notePlan(planned, modules: Set(sources.map(\.module.id.rawValue)), from: now.addingTimeInterval(-lateness),
                             until: now.addingTimeInterval(horizon), at: now)
        try prompts.expire(at: now)
        let candidates = planned.filter { $0.date <= now }
        let delivered = try log.delivered(among: candidates.map(\.id))
        return (candidates.filter { !delivered.contains($0.id) }, planned.first { $0.date > now }?.date)
    }

    /// Delivers every due reminder through `notifier`, each exactly once (the log decides), and
    /// returns the ones delivered plus the time of the next. `channel` names the program that
    /// delivers (`shell` or `daemon`) in the prompt's delivered event. A snoozed prompt whose
    /// ten minutes are up is announced again (once, the log decides again), not counted as a
    /// second delivery.
    @discardableResult
    public func deliverDue(through notifier: any ReminderNotifier, channel: String = "shell") throws -> (delivered: [PlannedReminder], next: Date?) {
        let now = clock.now
        let (due, next) = try pending(at: now)
        var delivered: [PlannedReminder] = []
        for reminder in due where try log.claim(reminder, at: now, channel: "pending") {
            let method = notifier.deliver(reminder)
            try log.record(reminder.id, channel: method)
            try prompts.delivered(reminder, at: now, channel: channel, window: prompts.completionWindow(of: reminder.questionnaireID))
            delivered.append(reminder)
        }
        let snoozed = Set(try prompts.snoozedDue(at: now).map(\.promptID))
        if !snoozed.isEmpty {
            let recent = try ReminderPlanner(timeZone: timeZone).plan(sources(), from: now.addingTimeInterval(-PromptTiming.recentPromptLookBack),
                                                                      to: now.addingTimeInterval(1))
            for reminder in recent where snoozed.contains(reminder.id) {
                // Logged under an id of its own, so the second announcement also comes once.
                let second = PlannedReminder(moduleID: reminder.moduleID, moduleName: reminder.moduleName, ruleID: reminder.ruleID + "#snoozed",
                                             questionnaireID: reminder.questionnaireID, date: reminder.date, localDate: reminder.localDate,
                                             localTime: reminder.localTime, command: reminder.command, tone: reminder.tone, sound: reminder.sound)
                guard try log.claim(second, at: now, channel: "snoozed") else { continue }
                _ = notifier.deliver(reminder)
                delivered.append(reminder)
            }
        }
        return (delivered, next)
    }
}
