import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// A clinical questionnaire the person completed (thesis FR7, FR8): the whole answer sheet,
/// kept locked, with the definition version it answered. A synced record of `tn` (kind
/// `completed`, id the sheet's id), so a questionnaire completed on one device counts as
/// completed on the others, whether or not a study server collects the sheet as well.
public struct CompletedQuestionnaire: Codable, Sendable, Hashable, HealthRecordEntry {
    public static let databaseTableName = "tn_completed"
    public static let recordKind = "completed"

    public var id: String
    public var questionnaireID: String
    public var version: Int
    public var completedAt: Date
    public var sheet: AnswerSheet
    public var updatedAt: Date

    public var recordID: String { id }

    public init(sheet: AnswerSheet) {
        id = sheet.id.uuidString.lowercased()
        questionnaireID = sheet.questionnaireID
        version = sheet.questionnaireVersion
        completedAt = (sheet.endedAt ?? sheet.startedAt).date
        self.sheet = sheet
        updatedAt = completedAt
    }

    /// The sheet is the one the record is named after, for the questionnaire it names, and
    /// complete.
    public func validate() throws {
        guard sheet.id.uuidString.lowercased() == id, sheet.questionnaireID == questionnaireID, !sheet.isPartial else {
            throw UNITIError(L("tn.questionnaire.error.badCompleted", ["id": id]))
        }
    }
}

extension CompletedQuestionnaire {
    /// A completed questionnaire pulled from another device also keeps its sheet with the core's
    /// sheets (unless that sheet is here already), in the sync's transaction: the study
    /// questionnaires' states are computed from the sheets, so the questionnaire counts as
    /// completed (locked, or answered for this period) on this device too, whether or not a
    /// study server sends the sheet as well.
    public static func merge(_ change: PulledRecordChange<Self>, in db: Database) throws {
        try mergeChecked(change, in: db)
        if let record = change.record {
            try AnswerSheetStore.keepPulled(record.sheet, owner: change.owner, in: db)
        }
    }
}
