import Foundation
import PostgresNIO

/// The study-password throttle's counts on PostgreSQL: the twin of
/// `SQLiteServerStore+StudyPasswordFailures.swift`. The check and the count happen in one
/// transaction that holds the person's lock and then the study's count's lock (always in this
/// order), so simultaneous guesses from several processes are counted one after another and
/// none slips through between another's check and count.
extension PostgreSQLServerStore {
    public func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, studyRule: ThrottleRule,
                                          now: Date) async throws -> Int? {
        try await transaction { connection in
            try await Self.lockPerson(userId, .studyPasswords, on: connection, logger: logger)
            let studyKey = [ThrottleKey(StudyPasswordThrottle.studyKey(studyId), studyRule)]
            let (studyWait, studyCounts) = try await Self.checkThrottle(studyKey, now: now, on: connection, logger: logger)
            let current = try await connection.query("""
                SELECT failures, first_failure, last_failure FROM study_password_failures
                WHERE user_id = \(userId) AND study_id = \(studyId)
                """, logger: logger).collect().first.map { row -> ThrottleRule.Count in
                let columns = row.makeRandomAccess()
                return ThrottleRule.Count(failures: Int(try columns.value("failures", as: Int32.self)),
                                          firstFailure: Date(timeIntervalSince1970: try columns.value("first_failure")),
                                          lastFailure: Date(timeIntervalSince1970: try columns.value("last_failure")))
            }
            let personWait = rule.retryAfter(current, now: now)
            if personWait != nil || studyWait != nil { return max(personWait ?? 0, studyWait ?? 0) }
            try await Self.addThrottle(studyKey, counts: studyCounts, now: now, on: connection, logger: logger)
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
        try await transaction { connection in
            try await connection.query("DELETE FROM study_password_failures WHERE user_id = \(userId) AND study_id = \(studyId)", logger: logger)
            try await Self.finishThrottle(clearing: [], takingBack: [StudyPasswordThrottle.studyKey(studyId)], on: connection, logger: logger)
        }
    }
}
