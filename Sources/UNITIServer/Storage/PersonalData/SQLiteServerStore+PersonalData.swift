import Foundation
import GRDB
import UNITIProtocol

extension SQLiteServerStore: PersonalDataStore {
    /// The tables ``personalData(userId:)`` reads, each with the section of ``PersonalData`` that
    /// carries its rows. Every table with per-user rows must be here (a test reads the schema).
    static let personalDataSections: [String: String] = [
        "users": "account",
        "memberships": "memberships",
        "answer_sheets": "sheets",
        "answers": "sheets",
        "module_records": "records",
        "sessions": "sessions",
        "mail_tokens": "mailedCodes",
        "study_password_failures": "studyPasswordFailures",
        // Sums of the person's numeric answers, derived from the sheets the download holds in full.
        "comparison_totals": "sheets",
        "comparison_running": "sheets",
        "comparison_snapshots": "sheets",
    ]

    public func personalData(userId: Int64) async throws -> PersonalData? {
        try await pool.read { db in
            guard let account = try AccountRow.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [userId])?.account else {
                return nil
            }
            func time(_ seconds: Double?) -> String? { seconds.map { Timestamps.format(Date(timeIntervalSince1970: $0)) } }
            let memberships = try Row.fetchAll(db, sql: """
                SELECT study_id, status, requested_at, updated_at, joined_at FROM memberships WHERE user_id = ? ORDER BY requested_at, study_id
                """, arguments: [userId]).map { row in
                PersonalData.Membership(studyId: row["study_id"], status: row["status"], requestedAt: time(row["requested_at"])!,
                                        updatedAt: time(row["updated_at"])!, joinedAt: time(row["joined_at"]))
            }
            let sheets = try StoredSheetRow.fetchAll(db, sql: """
                SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = ? ORDER BY id
                """, arguments: [userId]).map(\.stored)
            let records = try ModuleRecordRow.fetchAll(db, sql: """
                SELECT * FROM module_records WHERE user_id = ? ORDER BY sequence
                """, arguments: [userId]).map(\.record)
            let sessions = try Row.fetchAll(db, sql: """
                SELECT created_at, access_expires_at, revoked_at FROM sessions WHERE user_id = ? ORDER BY id
                """, arguments: [userId]).map { row in
                PersonalData.Session(createdAt: time(row["created_at"])!, expiresAt: time(row["access_expires_at"])!,
                                     revokedAt: time(row["revoked_at"]))
            }
            let codes = try Row.fetchAll(db, sql: """
                SELECT purpose, expires_at, used_at, cancelled_at FROM mail_tokens WHERE user_id = ? ORDER BY expires_at
                """, arguments: [userId]).map { row in
                PersonalData.MailedCode(purpose: row["purpose"], expiresAt: time(row["expires_at"])!, usedAt: time(row["used_at"]),
                                        cancelledAt: time(row["cancelled_at"]))
            }
            let failures = try Row.fetchAll(db, sql: """
                SELECT * FROM study_password_failures WHERE user_id = ? ORDER BY study_id
                """, arguments: [userId]).map { row in
                let count = StudyPasswordFailureSchema.count(row)
                return PersonalData.StudyPasswordFailures(studyId: row["study_id"], failures: count.failures,
                                                          firstFailure: Timestamps.format(count.firstFailure),
                                                          lastFailure: Timestamps.format(count.lastFailure))
            }
            return PersonalData(
                account: PersonalData.Account(account),
                memberships: memberships, sheets: sheets, records: records, sessions: sessions, mailedCodes: codes,
                studyPasswordFailures: failures)
        }
    }
}
