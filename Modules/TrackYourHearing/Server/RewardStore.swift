import Foundation
import UNITIProtocol
import UNITIServer

/// One study's sheets for ``RewardRules/status(studyId:sheets:)``.
public struct RewardSheets: Sendable, Hashable {
    public var studyId: String
    public var sheets: [RewardRules.Sheet]
}

/// What Track Your Hearing rewards are computed from: the person's own completed sheets, per study
/// that turns rewards on.
///
/// Reads only; the figures themselves are ``RewardRules``', so that every store gives the same.
extension ServerStore {
    /// For each study with rewards on where the user is a `member`, in the order joined: the
    /// user's completed (not partial) sheets of the study's questionnaires that Track Your Hearing
    /// presents (the questionnaire's link names this module). Sheets of other modules' questionnaires, and other users' sheets, never.
    func rewardSheets(userId: Int64) async throws -> [RewardSheets] {
        let studyIds: [String] = try await rows("""
            SELECT m.study_id FROM memberships m JOIN studies s ON s.id = m.study_id
            WHERE m.user_id = \(userId) AND m.status = 'member' AND s.rewards = \(true)
            ORDER BY COALESCE(m.joined_at, m.updated_at), m.study_id
            """).map { try $0["study_id"] }
        var result: [RewardSheets] = []
        for studyId in studyIds {
            // The module is the questionnaire's link as it is now (`questionnaire import --module`).
            let sheets = try await rows("""
                SELECT a.client_id, a.finished_at, a.started_at, a.reminded_at FROM answer_sheets a
                JOIN questionnaire_links l ON l.questionnaire_id = a.questionnaire_id AND l.study_id = a.study_id
                WHERE a.user_id = \(userId) AND a.study_id = \(studyId) AND a.is_partial = \(false) AND l.module = \(TrackYourHearingServerPart.moduleID.rawValue)
                """).map { row in
                let clientId: String = try row["client_id"]
                let finished: String? = try row["finished_at"]
                guard let id = UUID(uuidString: clientId), let finished, let finishedAt = OffsetTimestamp(parsing: finished) else {
                    throw StoreCorruption("answer_sheets row \(clientId) has no readable id or finishing time")
                }
                return RewardRules.Sheet(id: id, finishedAt: finishedAt, startedAt: try row["started_at"], remindedAt: try row["reminded_at"])
            }
            result.append(RewardSheets(studyId: studyId, sheets: sheets))
        }
        return result
    }
}
