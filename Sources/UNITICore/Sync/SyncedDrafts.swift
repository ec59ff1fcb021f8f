import Foundation
import GRDB
import UNITIProtocol

/// Unfinished questionnaires that follow the person to other devices (Track Your Tinnitus
/// thesis, FR8/FR9: a baseline started on one device is continued on another).
///
/// A draft changes with every answer, so it travels as a module record (upsert by client id,
/// newest wins), never as an answer sheet: sheets are immutable on the server, and a partial
/// sheet would make the server acknowledge the finished sheet with the same id as a duplicate
/// and keep the partial one. The record's client id is `draft:<questionnaire id>` under the
/// owner's module id. Finishing the questionnaire puts the finished sheet in the record (other
/// devices drop their draft and know the answers; only this device uploads the sheet); starting
/// afresh replaces it with a tombstone.
///
/// Pulled draft records are applied by the core for every owner (modules and the shell alike),
/// before the remaining records go to their modules.
public enum SyncedDrafts {
    static let prefix = "draft:"

    /// The record id of a questionnaire's draft.
    public static func recordID(questionnaireID: String) -> String { prefix + questionnaireID }

    /// Keeps `draft` locally and queues it for the server, in the caller's transaction.
    public static func save(_ draft: QuestionnaireDraft, owner: String, at date: Date,
                            store: QuestionnaireDraftStore, in db: Database) throws {
        try store.save(draft, owner: owner, at: date, in: db)
        try RecordOutbox.save(db, moduleID: owner, clientID: recordID(questionnaireID: draft.sheet.questionnaireID),
                              payload: draft, updatedAt: date)
    }

    /// Drops the draft of a finished questionnaire here and sends the finished sheet in its place,
    /// so other devices drop theirs and know the questionnaire is answered (a person's worst
    /// symptom, chosen on the laptop, names item 8 on the phone too). The sheet itself is
    /// uploaded once, by this device, through ``SheetOutbox``.
    public static func finish(_ sheet: AnswerSheet, owner: String, at date: Date,
                              store: QuestionnaireDraftStore, in db: Database) throws {
        try store.delete(owner: owner, questionnaireID: sheet.questionnaireID, in: db)
        try RecordOutbox.save(db, moduleID: owner, clientID: recordID(questionnaireID: sheet.questionnaireID),
                              payload: QuestionnaireDraft(sheet: sheet, visited: []), updatedAt: date)
    }

    /// Drops a draft here and on other devices (the person chose to start afresh).
    public static func discard(questionnaireID: String, owner: String, at date: Date,
                               store: QuestionnaireDraftStore, in db: Database) throws {
        try store.delete(owner: owner, questionnaireID: questionnaireID, in: db)
        try RecordOutbox.delete(db, moduleID: owner, clientID: recordID(questionnaireID: questionnaireID), at: date)
    }

    /// Applies the draft records among `records` and returns the others.
    ///
    /// A pulled draft replaces the local one only when it is newer (the records come back to
    /// the device that wrote them, too); a tombstone removes a local draft that is not newer; a
    /// finished sheet is kept among the local sheets (without uploading it again) and removes
    /// the draft; a draft whose sheet was already finished here is ignored. A draft that cannot
    /// be read is skipped rather than failing the sync: it never overwrites anything.
    public static func apply(_ records: [ModuleRecord], store: QuestionnaireDraftStore, in db: Database) throws -> [ModuleRecord] {
        var others: [ModuleRecord] = []
        for record in records {
            guard record.clientId.hasPrefix(prefix) else {
                others.append(record)
                continue
            }
            let questionnaireID = String(record.clientId.dropFirst(prefix.count))
            guard let stamp = OffsetTimestamp(parsing: record.updatedAt) else { continue }
            let owner = record.moduleId
            let local = try store.draft(owner: owner, questionnaireID: questionnaireID, in: db)
            // Record times carry milliseconds; the local time is compared at the same precision.
            let pulledAt = RecordTime.truncated(stamp.date)
            let localAt = local.map { RecordTime.truncated($0.updatedAt) }
            if record.deleted {
                if let localAt, localAt <= pulledAt {
                    try store.delete(owner: owner, questionnaireID: questionnaireID, in: db)
                }
                continue
            }
            guard let payload = record.payload,
                  let pulled = try? APIClient.decoder.decode(QuestionnaireDraft.self, from: APIClient.encoder.encode(payload)),
                  pulled.sheet.questionnaireID == questionnaireID else { continue }
            let sameSheet = local?.draft.sheet.id == pulled.sheet.id
            let finishedHere = try Bool.fetchOne(db, sql: "SELECT 1 FROM core_answer_sheets WHERE id = ? AND isPartial = 0",
                                                 arguments: [pulled.sheet.id.uuidString]) ?? false
            if !pulled.sheet.isPartial {
                // A finished sheet always counts; it ends a draft of the same sheet whatever the
                // clocks say, and any other draft that is not newer.
                if !finishedHere {
                    try AnswerSheetStore(database: store.database, clock: store.clock).save(pulled.sheet, owner: owner, in: db)
                }
                if let localAt, sameSheet || localAt <= pulledAt {
                    try store.delete(owner: owner, questionnaireID: questionnaireID, in: db)
                }
                continue
            }
            guard !finishedHere else { continue }
            if let local, let localAt {
                // Newest wins; at the same millisecond, the version of the same sheet with more answers.
                let newer = pulledAt > localAt
                    || (pulledAt == localAt && sameSheet && pulled.sheet.answers.count > local.draft.sheet.answers.count)
                guard newer else { continue }
            }
            try store.save(pulled, owner: owner, at: pulledAt, in: db)
        }
        return others
    }
}
