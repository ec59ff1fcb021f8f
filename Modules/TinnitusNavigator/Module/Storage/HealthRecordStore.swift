import Foundation
import GRDB
import UNITICore

/// Reads and writes the health record. Every change goes through the module's synced records,
/// so it is kept and queued for the person's other devices in one transaction (thesis 6.1:
/// the exchange states created, deleted, exchanged are the outbox and its tombstones).
public struct HealthRecordStore: Sendable {
    public let records: SyncedRecords

    public init(records: SyncedRecords) {
        self.records = records
    }

    public init(_ context: ModuleContext) {
        self.init(records: context.records)
    }

    public var database: AppDatabase { records.database }

    /// Keeps a new entry, or an edited one (same id, newer update time: it replaces the entry
    /// on the other devices instead of adding a second one).
    public func save<Record: SyncedTableRecord>(_ record: Record, at date: Date? = nil) throws {
        try records.save(record, at: date)
    }

    /// Deletes an entry here and, through its tombstone, everywhere.
    public func delete<Record: SyncedTableRecord>(_ type: Record.Type, id: String, at date: Date? = nil) throws {
        try records.delete(type, id: id, at: date)
    }

    /// Every entry of one kind, in the given order.
    public func all<Record: SyncedTableRecord>(_ type: Record.Type, orderedBy ordering: [any SQLOrderingTerm] = []) throws -> [Record] {
        try database.writer.read { db in try Record.order(ordering).fetchAll(db) }
    }

    /// The entry whose id starts with `prefix` (at least four characters, as shown by the
    /// listings); one line when there is none or more than one.
    public func find<Record: SyncedTableRecord>(_ type: Record.Type, _ prefix: String, noun: String) throws -> Record {
        let key = prefix.trimmingCharacters(in: .whitespaces).lowercased()
        guard key.count >= 4 else {
            throw UNITIError(L("tn.error.idTooShort", ["id": prefix]))
        }
        let matches = try database.writer.read { db in
            try Record.filter(sql: "id LIKE ? ESCAPE '\\'", arguments: [Self.likePrefix(key)]).limit(2).fetchAll(db)
        }
        switch matches.count {
        case 0: throw UNITIError(L("tn.error.notFound", ["what": noun, "id": prefix]))
        case 1: return matches[0]
        default: throw UNITIError(L("tn.error.ambiguous", ["what": noun, "id": prefix]))
        }
    }

    static func likePrefix(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// When the record last changed anywhere (the newest update time of any entry), or nil
    /// for an empty record: for the reminder to keep the record up to date.
    public func lastTouched() throws -> Date? {
        try database.writer.read { db in
            try Date.fetchOne(db, sql: """
                SELECT max(updatedAt) FROM (
                    SELECT max(updatedAt) AS updatedAt FROM tn_events UNION ALL
                    SELECT max(updatedAt) FROM tn_therapies UNION ALL
                    SELECT max(updatedAt) FROM tn_audiograms UNION ALL
                    SELECT max(updatedAt) FROM tn_completed)
                """)
        }
    }
}
