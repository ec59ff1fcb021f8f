import Foundation
import PostgresNIO

/// The login throttle's counts on PostgreSQL: the twin of `SQLiteServerStore+LoginFailures.swift`.
/// The check and the count happen in one transaction holding an advisory lock on the login name,
/// so simultaneous guesses at one name from several server processes are counted one after
/// another and none slips through between another's check and count.
extension PostgreSQLServerStore {
    public func startLoginAttempt(login: String, rule: ThrottleRule, now: Date) async throws -> Int? {
        let key = LoginFailureKeys.key(login)
        return try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PersonLock.logins.rawValue), hashtext(\(key)))", logger: logger)
            let current = try await connection.query("""
                SELECT failures, first_failure, last_failure FROM login_failures WHERE login = \(key)
                """, logger: logger).collect().first.map { row -> ThrottleRule.Count in
                let columns = row.makeRandomAccess()
                return ThrottleRule.Count(failures: Int(try columns.value("failures", as: Int32.self)),
                                          firstFailure: Date(timeIntervalSince1970: try columns.value("first_failure")),
                                          lastFailure: Date(timeIntervalSince1970: try columns.value("last_failure")))
            }
            if let wait = rule.retryAfter(current, now: now) { return wait }
            if current == nil {
                try await connection.query("DELETE FROM login_failures WHERE last_failure < \(LoginFailureKeys.forgetBefore(now, rule: rule))",
                                           logger: logger)
            }
            let next = rule.adding(failureAt: now, to: current)
            try await connection.query("""
                INSERT INTO login_failures (login, failures, first_failure, last_failure)
                VALUES (\(key), \(Int32(clamping: next.failures)), \(next.firstFailure.timeIntervalSince1970), \(next.lastFailure.timeIntervalSince1970))
                ON CONFLICT (login) DO UPDATE SET failures = excluded.failures,
                    first_failure = excluded.first_failure, last_failure = excluded.last_failure
                """, logger: logger)
            return nil
        }
    }

    public func clearLoginFailures(login: String) async throws {
        try await client.query("DELETE FROM login_failures WHERE login = \(LoginFailureKeys.key(login))", logger: logger)
    }
}
