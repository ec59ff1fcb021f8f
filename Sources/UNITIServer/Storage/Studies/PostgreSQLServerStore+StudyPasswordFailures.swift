import Foundation
import PostgresNIO

/// The study-password throttle's counts on PostgreSQL: the twin of
/// `SQLiteServerStore+StudyPasswordFailures.swift`. The check and the count happen in one
/// transaction that holds the person's lock, so simultaneous guesses from several processes are
/// counted one after another and none slips through between another's check and count.
extension PostgreSQLServerStore {
    public func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, now: Date) async throws -> Int? {
        try await transaction { connection in
            try await Self.lockPerson(userId, .studyPasswords, on: connection, logger: logger)
            let current = try await connection.query("""
                SELECT failures, first_failure, last_failure FROM study_password_failures
                WHERE user_id = \(userId) AND study_id = \(studyId)
                """, logger: logger).collect().first.map { row -> ThrottleRule.Count in
                let columns = row.makeRandomAccess()
                return ThrottleRule.Count(failures: Int(try columns.value("failures", as: Int32.self)),
                                          firstFailure: Date(timeIntervalSince1970: try columns.value("first_failure")),
                                          lastFailure: Date(timeIntervalSince1970: try columns.value("last_failure")))
            }
            if let wait = rule.retryAfter(current, now: now) { return wait }
            let next = rule.adding(failureAt: now, to: current)
            try await connection.query("""
                INSERT INTO study_password_failures (user_id, study_id, failures, first_failure, last_failure)
                VALUES (\(userId), \(studyId), \(Int32(clamping: next.failures)), \(next.firstFailure.timeIntervalSince1970),
                        \(next.lastFailure.timeIntervalSince1970))
                ON CONFLICT (user_id, study_id) DO UPDATE SET failures = excluded.failures,
                    first_failure = excluded.first_failure, last_failure = excluded.last_failure
                """, logger: logger)
            return nil
        }
    }

    public func clearStudyPasswordFailures(userId: Int64, studyId: String) async throws {
        try await client.query("DELETE FROM study_password_failures WHERE user_id = \(userId) AND study_id = \(studyId)", logger: logger)
    }
}
