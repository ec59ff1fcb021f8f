import Foundation
import GRDB

/// The table behind the study-password throttle (a step of ``ServerMigrations``; never edit a shipped step).
enum StudyPasswordFailureSchema {
    /// `v6-study-password-failures`: wrong study passwords per person and study, so that the
    /// throttle holds across server processes and restarts.
    static func v6(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE study_password_failures (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                failures INTEGER NOT NULL,
                first_failure REAL NOT NULL,
                last_failure REAL NOT NULL,
                PRIMARY KEY (user_id, study_id)
            )
            """)
    }

    /// A row's count (the same columns as the throttle counts).
    static func count(_ row: Row) -> ThrottleRule.Count {
        ThrottleSchema.count(row)
    }
}

extension SQLiteServerStore {
    public func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, studyRule: ThrottleRule,
                                          now: Date) async throws -> Int? {
        try await pool.write { db in
            let current = try Row.fetchOne(db, sql: "SELECT * FROM study_password_failures WHERE user_id = ? AND study_id = ?",
                                           arguments: [userId, studyId]).map(StudyPasswordFailureSchema.count)
            let studyKey = [ThrottleKey(StudyPasswordThrottle.studyKey(studyId), studyRule)]
            let (studyWait, studyCounts) = try ThrottleSchema.check(db, studyKey, now: now)
            let personWait = rule.retryAfter(current, now: now)
            if personWait != nil || studyWait != nil { return max(personWait ?? 0, studyWait ?? 0) }
            try ThrottleSchema.add(db, studyKey, counts: studyCounts, now: now)
            let next = rule.adding(failureAt: now, to: current)
            try db.execute(sql: """
                INSERT INTO study_password_failures (user_id, study_id, failures, first_failure, last_failure)
                VALUES (:userId, :studyId, :failures, :first, :last)
                ON CONFLICT (user_id, study_id) DO UPDATE SET failures = excluded.failures,
                    first_failure = excluded.first_failure, last_failure = excluded.last_failure
                """, arguments: ["userId": userId, "studyId": studyId, "failures": next.failures,
                                 "first": next.firstFailure.timeIntervalSince1970, "last": next.lastFailure.timeIntervalSince1970])
            return nil
        }
    }

    public func clearStudyPasswordFailures(userId: Int64, studyId: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM study_password_failures WHERE user_id = ? AND study_id = ?", arguments: [userId, studyId])
            try ThrottleSchema.finish(db, clearing: [], takingBack: [StudyPasswordThrottle.studyKey(studyId)])
        }
    }
}
