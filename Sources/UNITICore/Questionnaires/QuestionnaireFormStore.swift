import Foundation
import GRDB
import UNITIProtocol

/// Keeps forms (``QuestionnaireForm``) per owner and questionnaire, and lets them follow the
/// person to other devices as module records of their owner.
///
/// Every change is stored at once, together with its record in the outbox (one transaction).
/// Forms are synced as module records rather than answer sheets: a form is never finished, and
/// it belongs to the person, not to a study that would have to list its questionnaire.
public struct QuestionnaireFormStore: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// The record id of a form (`form:<questionnaire id>`) among its owner's records.
    public static func clientID(questionnaireID: String) -> String { "form:\(questionnaireID)" }

    /// What crosses the wire for a form.
    struct Payload: Codable {
        var questionnaireID: String
        var questionnaireVersion: Int
        var answers: [String: AnswerValue]
    }

    /// The stored form of `definition`, or an empty one.
    public func form(_ definition: QuestionnaireDefinition, owner: String) throws -> QuestionnaireForm {
        let json = try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT answers FROM core_questionnaire_forms WHERE owner = ? AND questionnaireID = ?",
                                arguments: [owner, definition.id])
        }
        guard let json else { return QuestionnaireForm(definition: definition) }
        let answers = (try? JSONDecoder().decode([String: AnswerValue].self, from: Data(json.utf8))) ?? [:]
        return QuestionnaireForm(definition: definition, answers: answers)
    }

    /// Stores the form and queues it for sync, in one transaction.
    public func save(_ form: QuestionnaireForm, owner: String, at date: Date) throws {
        try database.writer.write { db in
            try Self.write(db, owner: owner, questionnaireID: form.definition.id, version: form.definition.version,
                           answers: form.answers, updatedAt: date)
            try RecordOutbox.save(db, moduleID: owner, clientID: Self.clientID(questionnaireID: form.definition.id),
                                  payload: Payload(questionnaireID: form.definition.id, questionnaireVersion: form.definition.version,
                                                   answers: form.answers),
                                  updatedAt: date)
        }
    }

    /// Applies a pulled form record of `owner` (call from `applyPulledRecords`): the newer of
    /// the local and the pulled version wins; a tombstone removes the local form unless it changed later.
    public static func applyPulled(_ record: ModuleRecord, owner: String, in db: Database) throws {
        guard record.clientId.hasPrefix("form:"), let updated = OffsetTimestamp(parsing: record.updatedAt)?.date else { return }
        let questionnaireID = String(record.clientId.dropFirst("form:".count))
        let local = try Date.fetchOne(db, sql: "SELECT updatedAt FROM core_questionnaire_forms WHERE owner = ? AND questionnaireID = ?",
                                      arguments: [owner, questionnaireID])
        if RecordTime.isNewer(local, than: updated) { return }  // ours is newer
        if record.deleted {
            try db.execute(sql: "DELETE FROM core_questionnaire_forms WHERE owner = ? AND questionnaireID = ?",
                           arguments: [owner, questionnaireID])
            return
        }
        guard let value = record.payload,
              let payload = try? APIClient.decoder.decode(Payload.self, from: APIClient.encoder.encode(value)) else { return }
        try write(db, owner: owner, questionnaireID: questionnaireID, version: payload.questionnaireVersion,
                  answers: payload.answers, updatedAt: updated)
    }

    private static func write(_ db: Database, owner: String, questionnaireID: String, version: Int,
                              answers: [String: AnswerValue], updatedAt: Date) throws {
        try db.execute(sql: """
            INSERT INTO core_questionnaire_forms(owner, questionnaireID, questionnaireVersion, answers, updatedAt)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(owner, questionnaireID) DO UPDATE SET questionnaireVersion = excluded.questionnaireVersion,
              answers = excluded.answers, updatedAt = excluded.updatedAt
            """, arguments: [owner, questionnaireID, version, try SheetJSON.encode(answers), updatedAt])
    }
}
