import Foundation

/// Where the throttles keep their counts (``ThrottleKey``: failed logins per account and per
/// client address, registration and reset requests, reset mails, wrong study passwords per
/// study), so that every server process behind one port and a restart see the same counts
/// (any process can serve any request).
///
/// The table `throttle_counts`: keys are opaque to the store; each count carries the time its
/// rule forgets it, so one table holds counts of rules with different windows and a new count
/// tidies those that are over. The check and the count happen in one transaction that holds each
/// key's lock (taken in key order, so two attempts sharing keys never wait for each other in a
/// circle): simultaneous guesses from several server processes are counted one after another,
/// and none slips through between another's check and count.
extension ServerStore {
    /// In one step: when any of `keys` must still wait by its rule, the longest wait in seconds
    /// (nothing is counted); else counts this attempt under every key and returns nil.
    func startThrottledAttempt(_ keys: [ThrottleKey], now: Date) async throws -> Int? {
        try await database.transaction { db in try await Self.throttledAttempt(keys, in: db, now: now) }
    }

    /// After a success: forgets the counts of `clearing`, and takes this attempt back from each
    /// count of `takingBack` (one fewer).
    func finishThrottledAttempt(clearing: [String], takingBack: [String]) async throws {
        try await database.transaction { db in try await Self.finishThrottledAttempt(clearing: clearing, takingBack: takingBack, in: db) }
    }

    /// ``startThrottledAttempt(_:now:)`` inside the caller's transaction.
    static func throttledAttempt(_ keys: [ThrottleKey], in db: any SQLExecutor, now: Date) async throws -> Int? {
        for key in Set(keys.map(\.key)).sorted() { try await db.lock(.name(key, .throttles)) }
        var wait: Int?
        var counts: [ThrottleRule.Count?] = []
        for key in keys {
            let current = try await db.row("SELECT failures, first_failure, last_failure FROM throttle_counts WHERE key = \(key.key)")
                .map(throttleCount)
            if let seconds = key.rule.retryAfter(current, now: now) { wait = max(wait ?? 0, seconds) }
            counts.append(current)
        }
        if let wait { return wait }
        if counts.contains(where: { $0 == nil }) {
            try await db.execute("DELETE FROM throttle_counts WHERE forget_after < \(now)")
        }
        for (key, current) in zip(keys, counts) {
            let next = key.rule.adding(failureAt: now, to: current)
            try await db.execute("""
                INSERT INTO throttle_counts (key, failures, first_failure, last_failure, forget_after)
                VALUES (\(key.key), \(next.failures), \(next.firstFailure), \(next.lastFailure), \(key.rule.forgottenAfter(next)))
                ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, first_failure = excluded.first_failure,
                    last_failure = excluded.last_failure, forget_after = excluded.forget_after
                """)
        }
        return nil
    }

    /// ``finishThrottledAttempt(clearing:takingBack:)`` inside the caller's transaction.
    static func finishThrottledAttempt(clearing: [String], takingBack: [String], in db: any SQLExecutor) async throws {
        if !clearing.isEmpty { try await db.execute("DELETE FROM throttle_counts WHERE key IN (\(list: clearing))") }
        if !takingBack.isEmpty {
            try await db.execute("UPDATE throttle_counts SET failures = failures - 1 WHERE key IN (\(list: takingBack)) AND failures > 0")
        }
    }

    /// A count as `throttle_counts` and `study_password_failures` keep it.
    static func throttleCount(_ row: SQLRow) throws -> ThrottleRule.Count {
        ThrottleRule.Count(failures: try row["failures"], firstFailure: try row["first_failure"], lastFailure: try row["last_failure"])
    }
}
