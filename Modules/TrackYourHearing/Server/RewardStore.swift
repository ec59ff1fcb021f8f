import Foundation
import UNITIProtocol
import UNITIServer

/// One study's sheets for ``RewardRules/status(studyId:sheets:)``.
public struct RewardSheets: Sendable, Hashable {
    public var studyId: String
    public var sheets: [RewardRules.Sheet]
}

/// What Track Your Hearing rewards are computed from: the person's own completed sheets, per study
/// that turns rewards on, read through the server's store (its switches and sheets).
///
/// Reads only; the figures themselves are ``RewardRules``', so that every store gives the same.
extension ServerStore {
    /// For each study with rewards on where the user is a `member`, in the order joined: the
    /// user's completed (not partial) sheets of the study's questionnaires that Track Your Hearing
    /// presents. Sheets of other modules' questionnaires, and other users' sheets, never.
    func rewardSheets(userId: Int64) async throws -> [RewardSheets] {
        var result: [RewardSheets] = []
        for studyId in try await joinedStudies(userId: userId, withSwitch: TrackYourHearingServerPart.rewardsSwitch.key) {
            let sheets = try await completedSheets(userId: userId, studyId: studyId, presentedBy: TrackYourHearingServerPart.moduleID)
            result.append(RewardSheets(studyId: studyId, sheets: sheets.map(RewardRules.Sheet.init)))
        }
        return result
    }
}
