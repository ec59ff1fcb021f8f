import Foundation
import GRDB
import UNITIProtocol

/// How a module hands data that is not a questionnaire answer (health-record entries, listening
/// sessions, feedback, settings that follow the person) to sync: call `save` or `delete` inside
/// the transaction that changes the module's own table, and the record reaches the server's
/// per-user record store with the next sync. Pulled records come back through
/// `UNITIModule.applyPulledRecords(_:in:)`.
public enum RecordOutbox {
    static let kind = "record"

    /// Queues the current version of a record.
    public static func save<Payload: Encodable>(_ db: Database, moduleID: String, clientID: String,
                                                payload: Payload, updatedAt: Date) throws {
        let data = try APIClient.encoder.encode(payload)
        let json = try APIClient.decoder.decode(JSONValue.self, from: data)
        try enqueue(db, ModuleRecordUpsert(moduleId: moduleID, clientId: clientID,
                                           updatedAt: OffsetTimestamp.utcMilliseconds(updatedAt), deleted: nil, payload: json))
    }

    /// Queues the deletion of a record (a tombstone on the server).
    public static func delete(_ db: Database, moduleID: String, clientID: String, at date: Date) throws {
        try enqueue(db, ModuleRecordUpsert(moduleId: moduleID, clientId: clientID,
                                           updatedAt: OffsetTimestamp.utcMilliseconds(date), deleted: true, payload: nil))
    }

    private static func enqueue(_ db: Database, _ upsert: ModuleRecordUpsert) throws {
        // One outbox entry per record: a newer version replaces a not yet delivered older one.
        try Outbox.enqueue(db, kind: kind, moduleID: upsert.moduleId,
                           clientID: "record:\(upsert.moduleId):\(upsert.clientId)",
                           payload: try APIClient.encoder.encode(upsert), at: Date())
    }
}

/// How a module queues a finished (or partial) answer sheet for upload, in the transaction that
/// stores it locally.
public enum SheetOutbox {
    static let kind = "answerSheet"

    public static func enqueue(_ db: Database, moduleID: String, sheet: AnswerSheet, at date: Date) throws {
        try Outbox.enqueue(db, kind: kind, moduleID: moduleID, clientID: "sheet:\(sheet.id.uuidString)",
                           payload: try APIClient.encoder.encode(sheet), at: date)
    }
}
