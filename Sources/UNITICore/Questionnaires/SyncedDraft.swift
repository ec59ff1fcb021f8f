import Foundation
import GRDB
import UNITIProtocol

/// Unfinished questionnaires that follow the person to other devices (Track Your Tinnitus
/// thesis, FR8/FR9: a baseline started on one device is continued on another): a draft is a
/// synced record of the core (kind `draft`, id the questionnaire's), for every owner.
///
/// A draft changes with every answer, so it travels as a record (newest wins), never as an
/// answer sheet: sheets are immutable on the server, and a partial sheet would make the server
/// acknowledge the finished sheet with the same id as a duplicate and keep the partial one.
/// Finishing the questionnaire puts the finished sheet in the record (other devices drop their
/// draft and know the answers; only this device uploads the sheet); starting afresh replaces it
/// with a tombstone.
extension QuestionnaireDraft: SyncedRecord {
    // `recordKind` is the shared type's own (UNITIProtocol), so the web portal writes the same record.
    public var recordID: String { sheet.questionnaireID }

    public static func localUpdatedAt(id: String, owner: ModuleID, in db: Database) throws -> Date? {
        try QuestionnaireDraftStore.draft(owner: owner, questionnaireID: id, in: db)?.updatedAt
    }

    public func storeVersion(updatedAt: Date, owner: ModuleID, in db: Database) throws {
        try QuestionnaireDraftStore.save(self, owner: owner, at: updatedAt, in: db)
    }

    public static func removeLocal(id: String, owner: ModuleID, in db: Database) throws {
        try QuestionnaireDraftStore.delete(owner: owner, questionnaireID: id, in: db)
    }

    /// Newest wins, with what a draft adds: a finished sheet always counts (it is kept among the
    /// local sheets without being uploaded again, and ends a draft of the same sheet whatever the
    /// clocks say, or any other draft that is not newer); a draft whose sheet was finished here is
    /// ignored; at the same millisecond the version of the same sheet with more answers wins.
    public static func merge(_ change: PulledRecordChange<QuestionnaireDraft>, in db: Database) throws {
        let local = try QuestionnaireDraftStore.draft(owner: change.owner, questionnaireID: change.id, in: db)
        let localAt = local.map { RecordTime.truncated($0.updatedAt) }
        guard let pulled = change.record else {
            if let localAt, localAt <= change.updatedAt { try removeLocal(id: change.id, owner: change.owner, in: db) }
            return
        }
        guard pulled.sheet.questionnaireID == change.id else { return }
        let sameSheet = local?.draft.sheet.id == pulled.sheet.id
        let finishedHere = try AnswerSheetStore.isFinished(pulled.sheet.id, in: db)
        if !pulled.sheet.isPartial {
            if !finishedHere { try AnswerSheetStore.keepPulled(pulled.sheet, owner: change.owner, in: db) }
            if let localAt, sameSheet || localAt <= change.updatedAt { try removeLocal(id: change.id, owner: change.owner, in: db) }
            return
        }
        guard !finishedHere else { return }
        if let local, let localAt {
            let newer = change.updatedAt > localAt
                || (change.updatedAt == localAt && sameSheet && pulled.sheet.answers.count > local.draft.sheet.answers.count)
            guard newer else { return }
        }
        try pulled.storeVersion(updatedAt: change.updatedAt, owner: change.owner, in: db)
    }
}

extension SyncedRecords {
    /// Keeps a questionnaire's draft and sends it to the person's other devices.
    func saveDraft(_ draft: QuestionnaireDraft, in db: Database) throws {
        try save(draft, in: db)
    }

    /// Drops the draft of a finished questionnaire here and sends the finished sheet in its
    /// place, so other devices drop theirs and know the questionnaire is answered (a worst
    /// symptom chosen on the laptop names item 8 on the phone too). The sheet itself is uploaded
    /// once, by this device, through ``SheetOutbox``.
    func finishDraft(with sheet: AnswerSheet, in db: Database) throws {
        try QuestionnaireDraftStore.delete(owner: owner, questionnaireID: sheet.questionnaireID, in: db)
        try queue(QuestionnaireDraft(sheet: sheet, visited: []), stampedAt: RecordTime.truncated(clock.now), in: db)
    }

    /// Drops a draft here and on other devices (the person chose to start afresh).
    func discardDraft(questionnaireID: String, in db: Database) throws {
        try delete(QuestionnaireDraft.self, id: questionnaireID, in: db)
    }
}
