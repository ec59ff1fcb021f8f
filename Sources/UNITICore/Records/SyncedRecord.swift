import Foundation
import GRDB
import UNITIProtocol

/// A kind of data that follows the person to their other devices as a module record: a
/// listening session, a favourite, a health-record entry, a questionnaire draft.
///
/// A type declares its kind and each value's id; the core does the rest once for every module
/// (``SyncedRecords`` to save and queue in one transaction, ``RecordRouter`` to route pulled
/// records by kind and merge them). On the wire a record is `<kind>:<id>` (``RecordAddress``)
/// under its owner, with an update time to the millisecond; the newest version wins, and a
/// tombstone deletes what is not newer than it.
///
/// A type backed by a table of its own conforms to ``SyncedTableRecord`` and declares two
/// lines:
/// ```swift
/// extension ListeningSession: SyncedTableRecord {
///     public static let recordKind = "session"
///     public var recordID: String { id }
/// }
/// ```
/// Types kept elsewhere (the core's drafts and forms, one per owner) implement the storage
/// requirements themselves, and may replace ``merge(_:in:)`` when newest-wins is not the whole rule.
public protocol SyncedRecord: Codable, Sendable {
    /// The kind's name on the wire, unique within its owner: lowercase letters, digits and `-`.
    static var recordKind: String { get }
    /// The value's id within its kind; "" for a kind with a single record (a setting).
    var recordID: String { get }

    /// When the local version of a record last changed; nil when there is none.
    static func localUpdatedAt(id: String, owner: ModuleID, in db: Database) throws -> Date?
    /// Keeps this version locally, stamped `updatedAt` (a local change or a newer pulled one).
    func storeVersion(updatedAt: Date, owner: ModuleID, in db: Database) throws
    /// Removes the local version (a local deletion or a pulled tombstone).
    static func removeLocal(id: String, owner: ModuleID, in db: Database) throws

    /// Applies a version pulled from the server, inside the sync's transaction. The default is
    /// newest-wins (``RecordMerge/newestWins(_:in:)``).
    static func merge(_ change: PulledRecordChange<Self>, in db: Database) throws
}

extension SyncedRecord {
    public static func merge(_ change: PulledRecordChange<Self>, in db: Database) throws {
        try RecordMerge.newestWins(change, in: db)
    }

    /// Where this record lives on the wire.
    public func address(owner: ModuleID) -> RecordAddress {
        RecordAddress(owner: owner, kind: Self.recordKind, id: recordID)
    }
}

/// A version of a record pulled from the server: the record, or nil for a tombstone.
public struct PulledRecordChange<Record: SyncedRecord>: Sendable {
    public let owner: ModuleID
    public let id: String
    /// The server's update time, to the millisecond.
    public let updatedAt: Date
    /// The pulled version; nil when the record was deleted.
    public let record: Record?

    public init(owner: ModuleID, id: String, updatedAt: Date, record: Record?) {
        self.owner = owner
        self.id = id
        self.updatedAt = updatedAt
        self.record = record
    }
}

/// The merge rule every record kind shares.
public enum RecordMerge {
    /// The pulled version replaces the local one unless the local one is newer (records come
    /// back to the device that wrote them too, so an equal time is applied again, harmlessly);
    /// a tombstone removes a local version that is not newer than it.
    public static func newestWins<Record: SyncedRecord>(_ change: PulledRecordChange<Record>, in db: Database) throws {
        let local = try Record.localUpdatedAt(id: change.id, owner: change.owner, in: db)
        if RecordTime.isNewer(local, than: change.updatedAt) { return }
        if let record = change.record {
            try record.storeVersion(updatedAt: change.updatedAt, owner: change.owner, in: db)
        } else if local != nil {
            try Record.removeLocal(id: change.id, owner: change.owner, in: db)
        }
    }
}

/// A synced record that is a row of the module's own table (a GRDB record whose primary key is
/// ``SyncedRecord/recordID`` and which has an `updatedAt` column): storage comes for free.
public protocol SyncedTableRecord: SyncedRecord, FetchableRecord, PersistableRecord {
    var updatedAt: Date { get set }
}

extension SyncedTableRecord {
    public static func localUpdatedAt(id: String, owner: ModuleID, in db: Database) throws -> Date? {
        try fetchOne(db, key: id)?.updatedAt
    }

    public func storeVersion(updatedAt: Date, owner: ModuleID, in db: Database) throws {
        var copy = self
        copy.updatedAt = updatedAt
        try copy.save(db)
    }

    public static func removeLocal(id: String, owner: ModuleID, in db: Database) throws {
        _ = try deleteOne(db, key: id)
    }
}
