import Foundation
import GRDB
import UNITIProtocol

/// Queues record changes for the server's per-user record store (see ``SyncedRecords``, the way
/// modules write them).
enum RecordOutbox {
    static let kind = "record"

    /// One outbox entry per record: a newer version replaces a not yet delivered older one.
    static func enqueue(_ db: Database, _ upsert: ModuleRecordUpsert) throws {
        try Outbox.enqueue(db, kind: kind, moduleID: upsert.moduleId,
                           clientID: "record:\(upsert.moduleId):\(upsert.clientId)",
                           payload: try APIClient.encoder.encode(upsert),
                           at: OffsetTimestamp(parsing: upsert.updatedAt)?.date ?? .distantPast)
    }
}

/// How a module queues a finished answer sheet for upload, in the transaction that stores it
/// locally. The sheet is stamped with its owner, so the person's other devices give it to the
/// same module when they pull it.
public enum SheetOutbox {
    static let kind = "answerSheet"

    public static func enqueue(_ db: Database, owner: ModuleID, sheet: AnswerSheet, at date: Date) throws {
        var sheet = sheet
        sheet.owner = sheet.owner ?? owner
        try Outbox.enqueue(db, kind: kind, moduleID: owner.rawValue, clientID: "sheet:\(sheet.id.uuidString)",
                           payload: try APIClient.encoder.encode(sheet), at: date)
    }
}
