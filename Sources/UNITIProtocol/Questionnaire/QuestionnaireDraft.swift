import Foundation

/// An unfinished sheet and which questions were already passed (so that an optional item left
/// empty is not asked again on resume).
///
/// Shared by client and server because a draft that syncs is a record of kind `draft` (id the
/// questionnaire's) that both write: the shell and the modules through their synced records, the
/// web portal directly in the server's record store. A draft whose sheet is no longer partial is
/// the finished sheet in the draft's place: it ends the draft on every device.
public struct QuestionnaireDraft: Codable, Hashable, Sendable {
    public var sheet: AnswerSheet
    public var visited: [String]

    public init(sheet: AnswerSheet, visited: [String]) {
        self.sheet = sheet
        self.visited = visited
    }

    /// The record kind a synced draft travels as, and its client id on the wire (`draft:<questionnaire>`).
    public static let recordKind = "draft"
    public static func recordClientID(questionnaireID: String) -> String { "\(recordKind):\(questionnaireID)" }
}
