import Foundation

/// `reminders run`: waits in the foreground for the next reminder, delivers it, and waits again,
/// until Ctrl-C (``Interrupt``) or a bound (a duration, a number of deliveries) is reached.
///
/// Waiting is injected (``sleep``), so tests advance a fixed clock instead of sleeping. It
/// wakes at least every second to notice Ctrl-C, and plans again every minute, so changed rules
/// take effect without a restart.
public struct ReminderDaemon: Sendable {
    let service: ReminderService
    let notifier: any ReminderNotifier
    let sleep: @Sendable (TimeInterval) -> Void
    let shouldStop: @Sendable () -> Bool
    /// The longest wait before planning again (changed rules take effect after at most this).
    let replanInterval: TimeInterval

    public init(service: ReminderService, notifier: any ReminderNotifier, replanInterval: TimeInterval = 60,
                sleep: @escaping @Sendable (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) },
                shouldStop: @escaping @Sendable () -> Bool = { Interrupt.isRequested }) {
        self.service = service
        self.notifier = notifier
        self.sleep = sleep
        self.shouldStop = shouldStop
        self.replanInterval = replanInterval
    }

    /// Runs until stopped, `duration` seconds have passed, or `count` reminders were delivered.
    /// Returns the reminders delivered. `whileWaiting` is called before each step of a wait (about
    /// once a second): the host sends what waits in the outbox there when a try is due.
    public func run(for duration: TimeInterval? = nil, count: Int? = nil, whileWaiting: () -> Void = {}) throws -> [PlannedReminder] {
        let clock = service.clock
        let deadline = duration.map { clock.now.addingTimeInterval($0) }
        var delivered: [PlannedReminder] = []
        while !shouldStop() {
            if let count, delivered.count >= count { break }
            let now = clock.now
            if let deadline, now >= deadline { break }
            let (sent, next) = try service.deliverDue(through: notifier, channel: "daemon")
            delivered += sent
            if let count, delivered.count >= count { break }
            var wait = replanInterval
            if let next { wait = min(wait, max(next.timeIntervalSince(now), 0)) }
            if let deadline { wait = min(wait, deadline.timeIntervalSince(now)) }
            // Sleep in steps of at most a second so Ctrl-C is noticed promptly.
            var remaining = max(wait, 0.001)
            while remaining > 0, !shouldStop() {
                let step = min(remaining, 1)
                whileWaiting()
                sleep(step)
                remaining -= step
            }
        }
        return delivered
    }
}
