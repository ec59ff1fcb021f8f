import Foundation
import PostgresNIO
import UNITIProtocol

/// ``RewardStore`` on PostgreSQL: the twin of `SQLiteServerStore+Rewards.swift`.
extension PostgreSQLServerStore: RewardStore {
    public func rewardSheets(userId: Int64) async throws -> [RewardSheets] {
        let studyIds: [String] = try await rows("""
            SELECT m.study_id FROM memberships m JOIN studies s ON s.id = m.study_id
            WHERE m.user_id = \(userId) AND m.status = 'member' AND s.rewards
            ORDER BY COALESCE(m.joined_at, m.updated_at), m.study_id
            """).map { try $0.value("study_id") }
        var result: [RewardSheets] = []
        for studyId in studyIds {
            // The module is the questionnaire's link as it is now (`questionnaire import --module`).
            let sheets = try await rows("""
                SELECT a.client_id, a.finished_at, a.started_at, a.reminded_at FROM answer_sheets a
                JOIN questionnaire_links l ON l.questionnaire_id = a.questionnaire_id AND l.study_id = a.study_id
                WHERE a.user_id = \(userId) AND a.study_id = \(studyId) AND NOT a.is_partial AND l.module = \(ModuleID.tyh.rawValue)
                """).map { row in
                let clientId: String = try row.value("client_id")
                let finished: String? = try row.value("finished_at")
                guard let id = UUID(uuidString: clientId), let finished, let finishedAt = OffsetTimestamp(parsing: finished) else {
                    throw StoreCorruption("answer_sheets row \(clientId) has no readable id or finishing time")
                }
                let remindedAt: Double? = try row.value("reminded_at")
                return RewardRules.Sheet(id: id, finishedAt: finishedAt, startedAt: Date(timeIntervalSince1970: try row.value("started_at")),
                                         remindedAt: remindedAt.map(Date.init(timeIntervalSince1970:)))
            }
            result.append(RewardSheets(studyId: studyId, sheets: sheets))
        }
        return result
    }
}
