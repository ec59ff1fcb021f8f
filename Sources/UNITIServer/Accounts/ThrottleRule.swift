import Foundation

/// When repeated attempts must wait: after `freeAttempts` counted inside `window`, each further
/// attempt must wait a delay that doubles per attempt (capped). A count whose window has passed
/// and whose last delay is over is forgotten. The rule of every throttle: logins
/// (``LoginThrottle``), study passwords (``StudyPasswordThrottle``), registration and reset
/// requests and reset mails (``MailRequestThrottle``); each counts under its own keys
/// (``ThrottleKey``) with its own numbers.
///
/// "At most 3 per hour" is `ThrottleRule(freeAttempts: 3, window: 3600, baseDelay: 3600, maximumDelay: 3600)`:
/// after three, the next waits an hour from the last.
public struct ThrottleRule: Sendable {
    public var freeAttempts: Int
    public var window: TimeInterval
    public var baseDelay: TimeInterval
    public var maximumDelay: TimeInterval

    public init(freeAttempts: Int = 5, window: TimeInterval = 15 * 60, baseDelay: TimeInterval = 2,
                maximumDelay: TimeInterval = 15 * 60) {
        self.freeAttempts = freeAttempts
        self.window = window
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// Failures counted so far for one key.
    public struct Count: Sendable, Hashable {
        public var failures: Int
        public var firstFailure: Date
        public var lastFailure: Date

        public init(failures: Int, firstFailure: Date, lastFailure: Date) {
            self.failures = failures
            self.firstFailure = firstFailure
            self.lastFailure = lastFailure
        }
    }

    /// Whether a count is old enough to forget.
    public func isExpired(_ count: Count, now: Date) -> Bool {
        now.timeIntervalSince(count.firstFailure) > window && now.timeIntervalSince(count.lastFailure) > maximumDelay
    }

    /// Seconds still to wait after `count`, or nil when the next attempt may go ahead.
    public func retryAfter(_ count: Count?, now: Date) -> Int? {
        guard let count, !isExpired(count, now: now), count.failures >= freeAttempts else { return nil }
        let exponent = min(count.failures - freeAttempts, 16)
        let delay = min(baseDelay * pow(2, Double(exponent)), maximumDelay)
        let remaining = count.lastFailure.addingTimeInterval(delay).timeIntervalSince(now)
        return remaining > 0 ? Int(remaining.rounded(.up)) : nil
    }

    /// When a count is forgotten by this rule (window and last delay both over): the store may
    /// delete it then.
    public func forgottenAfter(_ count: Count) -> Date {
        max(count.firstFailure.addingTimeInterval(window), count.lastFailure.addingTimeInterval(maximumDelay))
    }

    /// The count after one more failure at `now` (a new count when there was none or it expired).
    public func adding(failureAt now: Date, to count: Count?) -> Count {
        guard var count, !isExpired(count, now: now) else { return Count(failures: 1, firstFailure: now, lastFailure: now) }
        count.failures += 1
        count.lastFailure = now
        return count
    }
}

/// One count a throttled step is checked against and counted under: a key naming what is counted
/// (`login:account:42`, `login:client:192.0.2.7`, `study-password:tinnitus-2027`, ...) and the
/// rule for it. A step may name several keys (a login counts per account and per client
/// address); it waits while any of them must wait.
public struct ThrottleKey: Sendable {
    public var key: String
    public var rule: ThrottleRule

    public init(_ key: String, _ rule: ThrottleRule) {
        self.key = key
        self.rule = rule
    }
}
