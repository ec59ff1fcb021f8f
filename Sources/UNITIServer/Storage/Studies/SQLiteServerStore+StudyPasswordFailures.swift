import Foundation
import GRDB


extension SQLiteServerStore {
    public func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, now: Date) async throws -> Int? {
        try await sqlite.write { db in
            let current = try Row.fetchOne(db, sql: "SELECT * FROM study_password_failures WHERE user_id = ? AND study_id = ?",
                                           arguments: [userId, studyId]).map(StudyPasswordFailureSchema.count)
            if let wait = rule.retryAfter(current, now: now) { return wait }
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
        try await sqlite.write { db in
            try db.execute(sql: "DELETE FROM study_password_failures WHERE user_id = ? AND study_id = ?", arguments: [userId, studyId])
        }
    }
}
