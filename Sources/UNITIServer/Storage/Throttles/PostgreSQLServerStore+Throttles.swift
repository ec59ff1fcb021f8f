import Foundation
import Logging
import PostgresNIO

/// ``ThrottleStore`` on PostgreSQL: the twin of `SQLiteServerStore+Throttles.swift`. The check
/// and the count happen in one transaction holding an advisory lock per key (taken in key order,
/// so two steps sharing keys never wait for each other in a circle), so simultaneous guesses
/// from several server processes are counted one after another and none slips through between
/// another's check and count.
extension PostgreSQLServerStore: ThrottleStore {
    public func startThrottledAttempt(_ keys: [ThrottleKey], now: Date) async throws -> Int? {
        try await transaction { connection in
            let (wait, counts) = try await Self.checkThrottle(keys, now: now, on: connection, logger: logger)
            if let wait { return wait }
            try await Self.addThrottle(keys, counts: counts, now: now, on: connection, logger: logger)
            return nil
        }
    }

    public func finishThrottledAttempt(clearing: [String], takingBack: [String]) async throws {
        try await transaction { connection in
            try await Self.finishThrottle(clearing: clearing, takingBack: takingBack, on: connection, logger: logger)
        }
    }

    /// Locks `keys` and reads their counts: the longest wait, and the counts (nil where none).
    static func checkThrottle(_ keys: [ThrottleKey], now: Date, on connection: PostgresConnection,
                              logger: Logger) async throws -> (wait: Int?, counts: [ThrottleRule.Count?]) {
        for key in Set(keys.map(\.key)).sorted() {
            try await connection.query("SELECT pg_advisory_xact_lock(\(PersonLock.logins.rawValue), hashtext(\(key)))", logger: logger)
        }
        var wait: Int?
        var counts: [ThrottleRule.Count?] = []
        for key in keys {
            let current = try await connection.query("""
                SELECT failures, first_failure, last_failure FROM throttle_counts WHERE key = \(key.key)
                """, logger: logger).collect().first.map { row -> ThrottleRule.Count in
                let columns = row.makeRandomAccess()
                return ThrottleRule.Count(failures: Int(try columns.value("failures", as: Int32.self)),
                                          firstFailure: Date(timeIntervalSince1970: try columns.value("first_failure")),
                                          lastFailure: Date(timeIntervalSince1970: try columns.value("last_failure")))
            }
            if let seconds = key.rule.retryAfter(current, now: now) { wait = max(wait ?? 0, seconds) }
            counts.append(current)
        }
        return (wait, counts)
    }

    /// Counts one attempt under `keys` (locked by ``checkThrottle(_:now:on:logger:)`` in the same
    /// transaction); a new count first deletes those whose rules have forgotten them.
    static func addThrottle(_ keys: [ThrottleKey], counts: [ThrottleRule.Count?], now: Date, on connection: PostgresConnection,
                            logger: Logger) async throws {
        if counts.contains(where: { $0 == nil }) {
            try await connection.query("DELETE FROM throttle_counts WHERE forget_after < \(now.timeIntervalSince1970)", logger: logger)
        }
        for (key, current) in zip(keys, counts) {
            let next = key.rule.adding(failureAt: now, to: current)
            try await connection.query("""
                INSERT INTO throttle_counts (key, failures, first_failure, last_failure, forget_after)
                VALUES (\(key.key), \(Int32(clamping: next.failures)), \(next.firstFailure.timeIntervalSince1970),
                        \(next.lastFailure.timeIntervalSince1970), \(key.rule.forgottenAfter(next).timeIntervalSince1970))
                ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, first_failure = excluded.first_failure,
                    last_failure = excluded.last_failure, forget_after = excluded.forget_after
                """, logger: logger)
        }
    }

    static func finishThrottle(clearing: [String], takingBack: [String], on connection: PostgresConnection, logger: Logger) async throws {
        for key in clearing {
            try await connection.query("DELETE FROM throttle_counts WHERE key = \(key)", logger: logger)
        }
        for key in takingBack {
            try await connection.query("UPDATE throttle_counts SET failures = failures - 1 WHERE key = \(key) AND failures > 0",
                                       logger: logger)
        }
    }
}
