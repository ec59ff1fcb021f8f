import Foundation
import GRDB

/// The table of the login throttle before issue 27 (a shipped step of ``ServerMigrations``,
/// kept so that the step list stays as it shipped; `v11-throttle-counts` drops the table).
enum LoginFailureSchema {
    /// `v7-login-failures`: failed logins per login name, so that the throttle holds across
    /// server processes and restarts.
    static func v7(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE login_failures (
                login TEXT PRIMARY KEY,
                failures INTEGER NOT NULL,
                first_failure REAL NOT NULL,
                last_failure REAL NOT NULL
            );
            CREATE INDEX login_failures_last ON login_failures(last_failure);
            """)
    }
}

/// The table behind ``ThrottleStore`` (a step of ``ServerMigrations``; never edit a shipped step).
enum ThrottleSchema {
    /// `v11-throttle-counts`: every throttle's counts by key, each with the time its rule forgets
    /// it. The login counts per name of `v7-login-failures` are dropped: they were counted per
    /// name, not per account, and a count lasts minutes.
    static func v11(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE login_failures;
            CREATE TABLE throttle_counts (
                key TEXT PRIMARY KEY,
                failures INTEGER NOT NULL,
                first_failure REAL NOT NULL,
                last_failure REAL NOT NULL,
                forget_after REAL NOT NULL
            );
            CREATE INDEX throttle_counts_forget ON throttle_counts(forget_after);
            """)
    }

    static func count(_ row: Row) -> ThrottleRule.Count {
        ThrottleRule.Count(failures: row["failures"], firstFailure: Date(timeIntervalSince1970: row["first_failure"]),
                           lastFailure: Date(timeIntervalSince1970: row["last_failure"]))
    }

    /// The check of ``ThrottleStore/startThrottledAttempt(_:now:)`` inside a write transaction:
    /// the longest wait of `keys`, and their current counts (nil where none).
    static func check(_ db: Database, _ keys: [ThrottleKey], now: Date) throws -> (wait: Int?, counts: [ThrottleRule.Count?]) {
        var wait: Int?
        var counts: [ThrottleRule.Count?] = []
        for key in keys {
            let current = try Row.fetchOne(db, sql: "SELECT failures, first_failure, last_failure FROM throttle_counts WHERE key = ?",
                                           arguments: [key.key]).map(count)
            if let seconds = key.rule.retryAfter(current, now: now) { wait = max(wait ?? 0, seconds) }
            counts.append(current)
        }
        return (wait, counts)
    }

    /// The count of ``ThrottleStore/startThrottledAttempt(_:now:)`` after its check passed. A new
    /// count first deletes those whose rules have forgotten them: the table holds recent keys only.
    static func add(_ db: Database, _ keys: [ThrottleKey], counts: [ThrottleRule.Count?], now: Date) throws {
        if counts.contains(where: { $0 == nil }) {
            try db.execute(sql: "DELETE FROM throttle_counts WHERE forget_after < ?", arguments: [now.timeIntervalSince1970])
        }
        for (key, current) in zip(keys, counts) {
            let next = key.rule.adding(failureAt: now, to: current)
            try db.execute(sql: """
                INSERT INTO throttle_counts (key, failures, first_failure, last_failure, forget_after)
                VALUES (:key, :failures, :first, :last, :forget)
                ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, first_failure = excluded.first_failure,
                    last_failure = excluded.last_failure, forget_after = excluded.forget_after
                """, arguments: ["key": key.key, "failures": next.failures, "first": next.firstFailure.timeIntervalSince1970,
                                 "last": next.lastFailure.timeIntervalSince1970,
                                 "forget": key.rule.forgottenAfter(next).timeIntervalSince1970])
        }
    }

    /// ``ThrottleStore/finishThrottledAttempt(clearing:takingBack:)`` inside a write transaction.
    static func finish(_ db: Database, clearing: [String], takingBack: [String]) throws {
        for key in clearing {
            try db.execute(sql: "DELETE FROM throttle_counts WHERE key = ?", arguments: [key])
        }
        for key in takingBack {
            try db.execute(sql: "UPDATE throttle_counts SET failures = failures - 1 WHERE key = ? AND failures > 0", arguments: [key])
        }
    }
}

extension SQLiteServerStore: ThrottleStore {
    public func startThrottledAttempt(_ keys: [ThrottleKey], now: Date) async throws -> Int? {
        try await pool.write { db in
            let (wait, counts) = try ThrottleSchema.check(db, keys, now: now)
            if let wait { return wait }
            try ThrottleSchema.add(db, keys, counts: counts, now: now)
            return nil
        }
    }

    public func finishThrottledAttempt(clearing: [String], takingBack: [String]) async throws {
        try await pool.write { db in try ThrottleSchema.finish(db, clearing: clearing, takingBack: takingBack) }
    }
}
