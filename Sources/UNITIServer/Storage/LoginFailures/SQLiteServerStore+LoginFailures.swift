import Foundation
import GRDB


extension SQLiteServerStore {
    public func startLoginAttempt(login: String, rule: ThrottleRule, now: Date) async throws -> Int? {
        let key = LoginFailureKeys.key(login)
        return try await sqlite.write { db in
            let current = try Row.fetchOne(db, sql: "SELECT * FROM login_failures WHERE login = ?", arguments: [key])
                .map(StudyPasswordFailureSchema.count)
            if let wait = rule.retryAfter(current, now: now) { return wait }
            if current == nil {
                try db.execute(sql: "DELETE FROM login_failures WHERE last_failure < ?",
                               arguments: [LoginFailureKeys.forgetBefore(now, rule: rule)])
            }
            let next = rule.adding(failureAt: now, to: current)
            try db.execute(sql: """
                INSERT INTO login_failures (login, failures, first_failure, last_failure) VALUES (:login, :failures, :first, :last)
                ON CONFLICT (login) DO UPDATE SET failures = excluded.failures,
                    first_failure = excluded.first_failure, last_failure = excluded.last_failure
                """, arguments: ["login": key, "failures": next.failures, "first": next.firstFailure.timeIntervalSince1970,
                                 "last": next.lastFailure.timeIntervalSince1970])
            return nil
        }
    }

    public func clearLoginFailures(login: String) async throws {
        try await sqlite.write { db in
            try db.execute(sql: "DELETE FROM login_failures WHERE login = ?", arguments: [LoginFailureKeys.key(login)])
        }
    }
}
