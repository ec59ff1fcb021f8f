import Foundation

/// Slows repeated failed logins for one login name: after `freeAttempts` failures inside `window`,
/// each further attempt must wait a delay that doubles per failure (capped), answered with 429 and
/// `Retry-After`. A success clears the count. Kept in memory: a restart forgets it, which only ever
/// makes the server more lenient, never locks anyone out.
public final class LoginThrottle: @unchecked Sendable {
    // All state is guarded by `lock`.
    private struct Entry {
        var failures: Int
        var firstFailure: Date
        var lastFailure: Date
    }

    private var entries: [String: Entry] = [:]
    private let lock = NSLock()
    let freeAttempts: Int
    let window: TimeInterval
    let baseDelay: TimeInterval
    let maximumDelay: TimeInterval

    public init(freeAttempts: Int = 5, window: TimeInterval = 15 * 60, baseDelay: TimeInterval = 2,
                maximumDelay: TimeInterval = 15 * 60) {
        self.freeAttempts = freeAttempts
        self.window = window
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// Seconds the caller must still wait before trying `login` again, or nil when it may try now.
    public func retryAfter(login: String, now: Date) -> Int? {
        lock.withLock {
            guard let entry = entries[key(login)] else { return nil }
            if now.timeIntervalSince(entry.firstFailure) > window && now.timeIntervalSince(entry.lastFailure) > maximumDelay {
                entries[key(login)] = nil
                return nil
            }
            guard entry.failures >= freeAttempts else { return nil }
            let exponent = min(entry.failures - freeAttempts, 16)
            let delay = min(baseDelay * pow(2, Double(exponent)), maximumDelay)
            let remaining = entry.lastFailure.addingTimeInterval(delay).timeIntervalSince(now)
            return remaining > 0 ? Int(remaining.rounded(.up)) : nil
        }
    }

    public func recordFailure(login: String, now: Date) {
        lock.withLock {
            var entry = entries[key(login)] ?? Entry(failures: 0, firstFailure: now, lastFailure: now)
            entry.failures += 1
            entry.lastFailure = now
            entries[key(login)] = entry
        }
    }

    public func recordSuccess(login: String) {
        lock.withLock { entries[key(login)] = nil }
    }

    private func key(_ login: String) -> String { login.lowercased() }
}
