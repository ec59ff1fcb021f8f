import Foundation
import GRDB
import UNITIProtocol

/// An owner's synced records (``ModuleContext/records``): every change is kept locally and
/// queued for the server in the same transaction, so a crash can never keep one without the
/// other, and the next sync sends it (``RecordOutbox``).
public struct SyncedRecords: Sendable {
    public let owner: ModuleID
    public let database: AppDatabase
    let clock: any WallClock

    public init(owner: ModuleID, database: AppDatabase, clock: any WallClock) {
        self.owner = owner
        self.database = database
        self.clock = clock
    }

    /// Keeps `record` (new or changed) and queues it, in the caller's transaction. Its update
    /// time is `date` (the clock's now when nil), cut to the millisecond the server keeps.
    public func save<Record: SyncedRecord>(_ record: Record, at date: Date? = nil, in db: Database) throws {
        let stamp = RecordTime.truncated(date ?? clock.now)
        try record.storeVersion(updatedAt: stamp, owner: owner, in: db)
        try queue(record, stampedAt: stamp, in: db)
    }

    /// Queues a version of a record without keeping it locally (a finished draft's last word).
    func queue<Record: SyncedRecord>(_ record: Record, stampedAt stamp: Date, in db: Database) throws {
        try RecordOutbox.enqueue(db, ModuleRecordUpsert(
            moduleId: owner.rawValue, clientId: record.address(owner: owner).clientID,
            updatedAt: OffsetTimestamp.utcMilliseconds(stamp), deleted: nil, payload: try RecordCoding.payload(record)))
    }

    /// Keeps and queues `record` in a transaction of its own.
    public func save<Record: SyncedRecord>(_ record: Record, at date: Date? = nil) throws {
        try database.writer.write { db in try save(record, at: date, in: db) }
    }

    /// Removes a record here and, through a tombstone, on the server and the person's other
    /// devices, in the caller's transaction.
    public func delete<Record: SyncedRecord>(_ type: Record.Type, id: String, at date: Date? = nil, in db: Database) throws {
        let stamp = RecordTime.truncated(date ?? clock.now)
        try Record.removeLocal(id: id, owner: owner, in: db)
        try RecordOutbox.enqueue(db, ModuleRecordUpsert(
            moduleId: owner.rawValue, clientId: RecordAddress(owner: owner, kind: Record.recordKind, id: id).clientID,
            updatedAt: OffsetTimestamp.utcMilliseconds(stamp), deleted: true, payload: nil))
    }

    /// Removes a record and queues its tombstone in a transaction of its own.
    public func delete<Record: SyncedRecord>(_ type: Record.Type, id: String, at date: Date? = nil) throws {
        try database.writer.write { db in try delete(type, id: id, at: date, in: db) }
    }
}
