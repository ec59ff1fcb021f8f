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
/// owner's module id; finishing the questionnaire replaces it with a tombstone.
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

    /// Drops the draft of a finished questionnaire here and, by a tombstone, on other devices.
    public static func finish(questionnaireID: String, owner: String, at date: Date,
                              store: QuestionnaireDraftStore, in db: Database) throws {
        try store.delete(owner: owner, questionnaireID: questionnaireID, in: db)
        try RecordOutbox.delete(db, moduleID: owner, clientID: recordID(questionnaireID: questionnaireID), at: date)
    }

    /// Applies the draft records among `records` and returns the others.
    ///
    /// A pulled draft replaces the local one only when it is newer (the records come back to
    /// the device that wrote them, too); a tombstone removes a local draft that is not newer;
    /// a draft whose sheet was already finished here is ignored. A draft that cannot be read
    /// is skipped rather than failing the sync: it never overwrites anything.
    public static func apply(_ records: [ModuleRecord], store: QuestionnaireDraftStore, in db: Database) throws -> [ModuleRecord] {
        var others: [ModuleRecord] = []
        for record in records {
            guard record.clientId.hasPrefix(prefix) else {
                others.append(record)
                continue
            }
            let questionnaireID = String(record.clientId.dropFirst(prefix.count))
            guard let stamp = OffsetTimestamp(parsing: record.updatedAt) else { continue }
            let local = try store.updatedAt(owner: record.moduleId, questionnaireID: questionnaireID, in: db)
            // Record times have whole seconds; the local time is compared at the same precision.
            let localSecond = local.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
            if record.deleted {
                if let localSecond, localSecond <= stamp.date {
                    try store.delete(owner: record.moduleId, questionnaireID: questionnaireID, in: db)
                }
                continue
            }
            if let localSecond, localSecond >= stamp.date { continue }
            guard let payload = record.payload,
                  let draft = try? APIClient.decoder.decode(QuestionnaireDraft.self, from: APIClient.encoder.encode(payload)),
                  draft.sheet.questionnaireID == questionnaireID else { continue }
            let finished = try Bool.fetchOne(db, sql: "SELECT 1 FROM core_answer_sheets WHERE id = ? AND isPartial = 0",
                                             arguments: [draft.sheet.id.uuidString]) ?? false
            guard !finished else { continue }
            try store.save(draft, owner: record.moduleId, at: stamp.date, in: db)
        }
        return others
    }
}
