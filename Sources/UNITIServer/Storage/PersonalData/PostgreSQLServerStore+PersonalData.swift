import Foundation
import PostgresNIO
import UNITIProtocol

/// ``PersonalDataStore`` on PostgreSQL: the twin of `SQLiteServerStore+PersonalData.swift`, read
/// in one repeatable-read transaction so the parts agree with each other.
extension PostgreSQLServerStore: PersonalDataStore {
    public func personalData(userId: Int64) async throws -> PersonalData? {
        func time(_ seconds: Double?) -> String? { seconds.map { Timestamps.format(Date(timeIntervalSince1970: $0)) } }
        return try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
                try await connection.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
            }
            guard let accountRow = try await rows("SELECT \(unescaped: Self.accountColumns) FROM users WHERE id = \(userId)").first else {
                return nil
            }
            let account = try Self.account(accountRow)
            let memberships = try await rows("""
                SELECT study_id, status, requested_at, updated_at, joined_at FROM memberships WHERE user_id = \(userId)
                ORDER BY requested_at, study_id
                """).map { row in
                PersonalData.Membership(studyId: try row.value("study_id"), status: try row.value("status"),
                                        requestedAt: time(try row.value("requested_at"))!, updatedAt: time(try row.value("updated_at"))!,
                                        joinedAt: time(try row.value("joined_at")))
            }
            let sheets = try await rows("""
                SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = \(userId) ORDER BY id
                """).map { try Self.storedSheet($0).1 }
            let records = try await rows("""
                SELECT module_id, client_id, updated_at, deleted, payload FROM module_records WHERE user_id = \(userId) ORDER BY sequence
                """).map(Self.moduleRecord)
            let sessions = try await rows("""
                SELECT created_at, access_expires_at, revoked_at FROM sessions WHERE user_id = \(userId) ORDER BY id
                """).map { row in
                PersonalData.Session(createdAt: time(try row.value("created_at"))!, expiresAt: time(try row.value("access_expires_at"))!,
                                     revokedAt: time(try row.value("revoked_at")))
            }
            let codes = try await rows("""
                SELECT purpose, expires_at, used_at, cancelled_at FROM mail_tokens WHERE user_id = \(userId) ORDER BY expires_at
                """).map { row in
                PersonalData.MailedCode(purpose: try row.value("purpose"), expiresAt: time(try row.value("expires_at"))!,
                                        usedAt: time(try row.value("used_at")), cancelledAt: time(try row.value("cancelled_at")))
            }
            let failures = try await rows("""
                SELECT study_id, failures, first_failure, last_failure FROM study_password_failures WHERE user_id = \(userId)
                ORDER BY study_id
                """).map { row in
                PersonalData.StudyPasswordFailures(studyId: try row.value("study_id"), failures: Int(try row.value("failures", as: Int32.self)),
                                                   firstFailure: time(try row.value("first_failure"))!,
                                                   lastFailure: time(try row.value("last_failure"))!)
            }
            return PersonalData(
                account: PersonalData.Account(account),
                memberships: memberships, sheets: sheets, records: records, sessions: sessions, mailedCodes: codes,
                studyPasswordFailures: failures)
        }
    }
}
