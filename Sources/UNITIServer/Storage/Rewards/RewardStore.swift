import Foundation
import UNITIProtocol

/// What Track Your Hearing rewards are computed from: the person's own completed sheets, per study
/// that turns rewards on. Part of every ``ServerStore``.
///
/// Reads only; the figures themselves are ``RewardRules``', so that every store gives the same.
public protocol RewardStore: Sendable {
    /// For each study with rewards on where the user is a `member`, in the order joined: the
    /// user's completed (not partial) sheets of the study's questionnaires that Track Your Hearing
    /// (`tyh`) presents. Sheets of other modules' questionnaires, and other users' sheets, never.
    func rewardSheets(userId: Int64) async throws -> [RewardSheets]
}

/// One study's sheets for ``RewardRules/status(studyId:sheets:)``.
public struct RewardSheets: Sendable, Hashable {
    public var studyId: String
    public var sheets: [RewardRules.Sheet]
}
