import Foundation

/// When repeated failures must wait: after `freeAttempts` failures inside `window`, each further
/// attempt must wait a delay that doubles per failure (capped). A count whose window has passed
/// and whose last delay is over is forgotten. The rule of the login throttle (``LoginThrottle``)
/// and of the study-password throttle (``StudyPasswordThrottle``), which keep their counts apart.
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

    /// The count after one more failure at `now` (a new count when there was none or it expired).
    public func adding(failureAt now: Date, to count: Count?) -> Count {
        guard var count, !isExpired(count, now: now) else { return Count(failures: 1, firstFailure: now, lastFailure: now) }
        count.failures += 1
        count.lastFailure = now
        return count
    }
}

/// Slows repeated failed logins for one login name by ``ThrottleRule``, answered with 429 and
/// `Retry-After`. A success clears the count.
///
/// The count lives in the store (``LoginFailureStore``), checked and counted in one step: every
/// server process behind one port counts the same guesses, a restart forgets nothing, and
/// simultaneous guesses cannot all pass one check before any of them is counted.
public struct LoginThrottle: Sendable {
    public let rule: ThrottleRule

    public init(freeAttempts: Int = 5, window: TimeInterval = 15 * 60, baseDelay: TimeInterval = 2,
                maximumDelay: TimeInterval = 15 * 60) {
        rule = ThrottleRule(freeAttempts: freeAttempts, window: window, baseDelay: baseDelay, maximumDelay: maximumDelay)
    }

    /// Seconds the caller must still wait before trying `login` again, or nil after counting this
    /// try as a failure (``recordSuccess(login:store:)`` takes it back).
    func startAttempt(login: String, store: ServerStore, now: Date) async throws -> Int? {
        try await store.startLoginAttempt(login: login, rule: rule, now: now)
    }

    func recordSuccess(login: String, store: ServerStore) async throws {
        try await store.clearLoginFailures(login: login)
    }
}
