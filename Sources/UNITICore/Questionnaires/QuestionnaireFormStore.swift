import Foundation
import GRDB
import UNITIProtocol

/// Keeps forms (``QuestionnaireForm``) per owner and questionnaire, and lets them follow the
/// person to other devices as synced records of their owner (``QuestionnaireFormRecord``).
///
/// Forms are synced as records rather than answer sheets: a form is never finished, and it
/// belongs to the person, not to a study that would have to list its questionnaire.
public struct QuestionnaireFormStore: Sendable {
    let records: SyncedRecords

    public init(records: SyncedRecords) {
        self.records = records
    }

    /// The stored form of `definition`, or an empty one.
    public func form(_ definition: QuestionnaireDefinition) throws -> QuestionnaireForm {
        let json = try records.database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT answers FROM core_questionnaire_forms WHERE owner = ? AND questionnaireID = ?",
                                arguments: [records.owner.rawValue, definition.id])
        }
        guard let json else { return QuestionnaireForm(definition: definition) }
        let answers = (try? JSONDecoder().decode([String: AnswerValue].self, from: Data(json.utf8))) ?? [:]
        return QuestionnaireForm(definition: definition, answers: answers)
    }

    /// Stores the form and queues it for sync, in one transaction.
    public func save(_ form: QuestionnaireForm, at date: Date? = nil) throws {
        try records.save(QuestionnaireFormRecord(questionnaireID: form.definition.id, questionnaireVersion: form.definition.version,
                                                 answers: form.answers), at: date)
    }
}

/// A form's answers as a synced record of the core (kind `form`, id the questionnaire's), for
/// every owner; merged newest-wins.
public struct QuestionnaireFormRecord: SyncedRecord, Equatable {
    public static let recordKind = "form"
    public var questionnaireID: String
    public var questionnaireVersion: Int
    public var answers: [String: AnswerValue]

    public init(questionnaireID: String, questionnaireVersion: Int, answers: [String: AnswerValue]) {
        self.questionnaireID = questionnaireID
        self.questionnaireVersion = questionnaireVersion
        self.answers = answers
    }

    public var recordID: String { questionnaireID }

    public static func localUpdatedAt(id: String, owner: ModuleID, in db: Database) throws -> Date? {
        try Date.fetchOne(db, sql: "SELECT updatedAt FROM core_questionnaire_forms WHERE owner = ? AND questionnaireID = ?",
                          arguments: [owner.rawValue, id])
    }

    public func storeVersion(updatedAt: Date, owner: ModuleID, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO core_questionnaire_forms(owner, questionnaireID, questionnaireVersion, answers, updatedAt)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(owner, questionnaireID) DO UPDATE SET questionnaireVersion = excluded.questionnaireVersion,
              answers = excluded.answers, updatedAt = excluded.updatedAt
            """, arguments: [owner.rawValue, questionnaireID, questionnaireVersion, try SheetJSON.encode(answers), updatedAt])
    }

    public static func removeLocal(id: String, owner: ModuleID, in db: Database) throws {
        try db.execute(sql: "DELETE FROM core_questionnaire_forms WHERE owner = ? AND questionnaireID = ?",
                       arguments: [owner.rawValue, id])
    }
}
