import Foundation
import Metrics
import UNITIProtocol


/// A module record ready to store, with its update time parsed.
public struct RecordChange: Sendable {
    public var upsert: ModuleRecordUpsert
    public var updatedAt: Date

    public init(upsert: ModuleRecordUpsert, updatedAt: Date) {
        self.upsert = upsert
        self.updatedAt = updatedAt
    }
}

/// Where the generic per-user module records are kept (health-record entries, listening sessions,
/// settings that follow the person): upsert by (module, client id), the newest update time wins,
/// deletions stay as tombstones so that other devices learn of them.
///
/// The table `module_records` (SQLite `v1-module-records`, PostgreSQL `pg1-schema`).
///
/// - Newest wins in the upsert itself (`ON CONFLICT … DO UPDATE … WHERE stored < new`): of two
///   processes writing one record at once the later `updatedAt` stays, whatever the order, and an
///   equal time keeps what is stored, so a repeated push is harmless.
/// - `sequence` is the pull cursor, counted per person: a change takes the person's next number,
///   so a record changed again moves behind the cursors handed out before. One transaction at a
///   time writes a person's records (``StoreLock/person(_:_:)``), so a number is handed out only
///   after every smaller one of that person is committed.
extension ServerStore {
    /// Applies the changes in one transaction, each only when it is newer than what is stored.
    package func applyRecords(userId: Int64, changes: [RecordChange]) async throws -> [ModuleRecordBatchResult.Outcome] {
        let payloads = try changes.map { change -> String? in
            guard change.upsert.deleted != true, let payload = change.upsert.payload else { return nil }
            return try JSONCoding.string(payload)
        }
        let outcomes = try await database.transaction { db in
            try await db.lock(.person(userId, .records))
            var sequence: Int64 = try await db.row("""
                SELECT COALESCE(MAX(sequence), 0) AS last FROM module_records WHERE user_id = \(userId)
                """)?["last"] ?? 0
            var outcomes: [ModuleRecordBatchResult.Outcome] = []
            for (change, payload) in zip(changes, payloads) {
                let written = try await db.rows("""
                    INSERT INTO module_records (user_id, module_id, client_id, updated_at, deleted, payload, sequence)
                    VALUES (\(userId), \(change.upsert.moduleId), \(change.upsert.clientId), \(change.updatedAt),
                            \(change.upsert.deleted == true), \(payload), \(sequence + 1))
                    ON CONFLICT (user_id, module_id, client_id) DO UPDATE SET updated_at = excluded.updated_at,
                        deleted = excluded.deleted, payload = excluded.payload, sequence = excluded.sequence
                    WHERE module_records.updated_at < excluded.updated_at
                    RETURNING sequence
                    """)
                if written.isEmpty {
                    outcomes.append(.stale)
                } else {
                    sequence += 1
                    outcomes.append(.applied)
                }
            }
            return outcomes
        }
        // Counted once committed, for the operator's metrics (``ServerMetrics``).
        Counter(label: ServerMetrics.recordsStored).increment(by: outcomes.count { $0 == .applied })
        return outcomes
    }

    /// Changes after `cursor` (a server sequence number), oldest first; with `updatedSince`, only
    /// records whose own update time is at or after it.
    package func records(userId: Int64, after cursor: Int64, moduleId: ModuleID?, updatedSince: Date?,
                        limit: Int) async throws -> (records: [ModuleRecord], cursor: Int64, more: Bool) {
        var query: SQL = "\(ModuleRecords.select) WHERE user_id = \(userId) AND sequence > \(cursor)"
        if let moduleId { query += " AND module_id = \(moduleId.rawValue)" }
        if let updatedSince { query += " AND updated_at >= \(updatedSince)" }
        let rows = try await database.rows(query + " ORDER BY sequence LIMIT \(limit + 1)")
        let page = try rows.prefix(limit).map { try $0.decode(ModuleRecords.Row.self) }
        return (page.map(\.record), page.last?.sequence ?? cursor, rows.count > limit)
    }

    /// One record of the user by its address (tombstones included), nil when there is none: the
    /// web portal reads a questionnaire draft this way.
    func record(userId: Int64, moduleId: String, clientId: String) async throws -> ModuleRecord? {
        try await database.row("""
            \(ModuleRecords.select) WHERE user_id = \(userId) AND module_id = \(moduleId) AND client_id = \(clientId)
            """).map(ModuleRecords.record)
    }
}

/// Reading `module_records` rows (also for the person's data download).
enum ModuleRecords {
    /// What is read of a row: the time to the millisecond, the payload as JSON text.
    struct Row: StoreRecord {
        var moduleId: String, clientId: String, updatedAt: Date, deleted: Bool, payload: JSONValue?, sequence: Int64
        enum CodingKeys: CodingKey, CaseIterable { case moduleId, clientId, updatedAt, deleted, payload, sequence }

        var record: ModuleRecord {
            ModuleRecord(moduleId: moduleId, clientId: clientId, updatedAt: Timestamps.formatMilliseconds(updatedAt),
                         deleted: deleted, payload: payload)
        }
    }

    static let select: SQL = "SELECT \(Row.columns()) FROM module_records"

    static func record(_ row: SQLRow) throws -> ModuleRecord {
        try row.decode(Row.self).record
    }
}
