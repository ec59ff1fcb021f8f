import Foundation
import GRDB
import UNITIProtocol

extension SQLiteServerStore: RewardStore {
    public func rewardSheets(userId: Int64) async throws -> [RewardSheets] {
        try await pool.read { db in
            let studyIds = try String.fetchAll(db, sql: """
                SELECT m.study_id FROM memberships m JOIN studies s ON s.id = m.study_id
                WHERE m.user_id = ? AND m.status = 'member' AND s.rewards = 1
                ORDER BY COALESCE(m.joined_at, m.updated_at), m.study_id
                """, arguments: [userId])
            // The module is the questionnaire's link as it is now (`questionnaire import --module`).
            let sheets = try db.cachedStatement(sql: """
                SELECT a.client_id, a.finished_at, a.started_at, a.reminded_at FROM answer_sheets a
                JOIN questionnaire_links l ON l.questionnaire_id = a.questionnaire_id AND l.study_id = a.study_id
                WHERE a.user_id = :userId AND a.study_id = :studyId AND a.is_partial = 0 AND l.module = :module
                """)
            return try studyIds.map { studyId in
                let rows = try Row.fetchAll(sheets, arguments: ["userId": userId, "studyId": studyId, "module": ModuleID.tyh.rawValue])
                return RewardSheets(studyId: studyId, sheets: try rows.map(Self.rewardSheet))
            }
        }
    }

    private static func rewardSheet(_ row: Row) throws -> RewardRules.Sheet {
        let clientId: String = row["client_id"]
        let finished: String = row["finished_at"]
        guard let id = UUID(uuidString: clientId), let finishedAt = OffsetTimestamp(parsing: finished) else {
            throw DatabaseError(message: "answer_sheets row \(clientId) has no readable id or finishing time")
        }
        let remindedAt: Double? = row["reminded_at"]
        return RewardRules.Sheet(id: id, finishedAt: finishedAt, startedAt: Date(timeIntervalSince1970: row["started_at"]),
                                 remindedAt: remindedAt.map(Date.init(timeIntervalSince1970:)))
    }
}
