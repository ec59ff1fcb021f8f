import Foundation

/// Delivers due reminders while the shell runs: the REPL calls ``check()`` before each prompt.
///
/// Kept cheap: between checks it only compares the clock with the next planned time it
/// remembered, and plans again at most every ``refreshInterval`` (rules may change through
/// commands; ``invalidate()`` after a command makes the next check plan anew).
/// Used from the REPL's thread only.
public final class ReminderMonitor: @unchecked Sendable {
    let service: ReminderService
    let notifier: any ReminderNotifier
    public let refreshInterval: TimeInterval
    private var nextCheck: Date?

    public init(service: ReminderService, notifier: any ReminderNotifier, refreshInterval: TimeInterval = 60) {
        self.service = service
        self.notifier = notifier
        self.refreshInterval = refreshInterval
    }

    /// Delivers what is due now. Errors (an unreadable setting) never stop the shell: the
    /// reminders are simply tried again at the next check.
    @discardableResult
    public func check() -> [PlannedReminder] {
        let now = service.clock.now
        if let nextCheck, now < nextCheck { return [] }
        do {
            let (delivered, next) = try service.deliverDue(through: notifier)
            let refresh = now.addingTimeInterval(refreshInterval)
            nextCheck = next.map { min($0, refresh) } ?? refresh
            return delivered
        } catch {
            nextCheck = now.addingTimeInterval(refreshInterval)
            return []
        }
    }

    /// Forget the remembered next time (after a command that may have changed rules).
    public func invalidate() {
        nextCheck = nil
    }
}
