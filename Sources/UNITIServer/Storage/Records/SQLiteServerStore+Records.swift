import Foundation
import GRDB
import UNITIProtocol

/// The table behind ``RecordStore`` (steps of ``ServerMigrations``; never edit a shipped step).
enum RecordSchema {
    /// `v1-module-records`. `sequence` is the pull cursor: a change takes the next number, so a
    /// record changed again moves behind the cursors handed out before.
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE module_records (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                module_id TEXT NOT NULL,
                client_id TEXT NOT NULL,
                updated_at REAL NOT NULL,
                deleted INTEGER NOT NULL,
                payload TEXT,
                sequence INTEGER NOT NULL,
                PRIMARY KEY (user_id, module_id, client_id)
            );
            CREATE INDEX module_records_cursor ON module_records(user_id, sequence);
            """)
    }
}

/// A row of `module_records` as its owner pulls it, with its place in the sequence.
struct ModuleRecordRow: FetchableRecord {
    var sequence: Int64
    var record: ModuleRecord

    init(row: Row) throws {
        let payload: String? = row["payload"]
        sequence = row["sequence"]
        record = ModuleRecord(moduleId: row["module_id"], clientId: row["client_id"],
                              updatedAt: Timestamps.formatMilliseconds(Date(timeIntervalSince1970: row["updated_at"])),
                              deleted: row["deleted"], payload: try payload.map { try JSONCoding.decode(JSONValue.self, from: $0) })
    }
}

extension SQLiteServerStore: RecordStore {
    public func applyRecords(userId: Int64, changes: [RecordChange]) async throws -> [ModuleRecordBatchResult.Outcome] {
        let payloads = try changes.map { change -> String? in
            guard change.upsert.deleted != true, let payload = change.upsert.payload else { return nil }
            return try JSONCoding.string(payload)
        }
        return try await pool.write { db in
            var sequence = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(sequence), 0) FROM module_records") ?? 0
            var outcomes: [ModuleRecordBatchResult.Outcome] = []
            for (change, payload) in zip(changes, payloads) {
                let existing = try Double.fetchOne(db, sql: """
                    SELECT updated_at FROM module_records WHERE user_id = ? AND module_id = ? AND client_id = ?
                    """, arguments: [userId, change.upsert.moduleId, change.upsert.clientId])
                // Last writer by update time wins; an equal time keeps what the server has, so a
                // repeated push is harmless.
                if let existing, existing >= change.updatedAt.timeIntervalSince1970 {
                    outcomes.append(.stale)
                    continue
                }
                sequence += 1
                try db.execute(sql: """
                    INSERT INTO module_records (user_id, module_id, client_id, updated_at, deleted, payload, sequence)
                    VALUES (:userId, :moduleId, :clientId, :updatedAt, :deleted, :payload, :sequence)
                    ON CONFLICT (user_id, module_id, client_id) DO UPDATE SET updated_at = excluded.updated_at,
                        deleted = excluded.deleted, payload = excluded.payload, sequence = excluded.sequence
                    """, arguments: ["userId": userId, "moduleId": change.upsert.moduleId, "clientId": change.upsert.clientId,
                                     "updatedAt": change.updatedAt.timeIntervalSince1970, "deleted": change.upsert.deleted == true,
                                     "payload": payload, "sequence": sequence])
                outcomes.append(.applied)
            }
            return outcomes
        }
    }

    public func records(userId: Int64, after cursor: Int64, moduleId: ModuleID?, updatedSince: Date?,
                        limit: Int) async throws -> (records: [ModuleRecord], cursor: Int64, more: Bool) {
        try await pool.read { db in
            let rows = try ModuleRecordRow.fetchAll(db, sql: """
                SELECT * FROM module_records WHERE user_id = :userId AND sequence > :cursor
                    AND (:moduleId IS NULL OR module_id = :moduleId) AND (:since IS NULL OR updated_at >= :since)
                ORDER BY sequence LIMIT :limit
                """, arguments: ["userId": userId, "cursor": cursor, "moduleId": moduleId?.rawValue,
                                 "since": updatedSince?.timeIntervalSince1970, "limit": limit + 1])
            let page = rows.prefix(limit)
            return (page.map(\.record), page.last?.sequence ?? cursor, rows.count > limit)
        }
    }

    public func record(userId: Int64, moduleId: String, clientId: String) async throws -> ModuleRecord? {
        try await pool.read { db in
            try ModuleRecordRow.fetchOne(db, sql: """
                SELECT * FROM module_records WHERE user_id = ? AND module_id = ? AND client_id = ?
                """, arguments: [userId, moduleId, clientId])?.record
        }
    }
}
