import Foundation
import PostgresNIO
import UNITIProtocol

/// ``RecordStore`` on PostgreSQL: the twin of `SQLiteServerStore+Records.swift`, safe with
/// several server processes.
///
/// - Newest wins in the upsert itself (`ON CONFLICT … DO UPDATE … WHERE stored < new`), so of
///   two processes writing one record at once the later `updatedAt` stays, whatever the order.
/// - The pull cursor (`sequence`) counts per person, and one transaction at a time writes a
///   person's records (``PostgreSQLServerStore/lockPerson(_:_:on:logger:)``): a number is handed
///   out only after every smaller one of that person is committed, so a reader that saw number
///   n never finds a smaller one appearing later.
extension PostgreSQLServerStore: RecordStore {
    public func applyRecords(userId: Int64, changes: [RecordChange]) async throws -> [ModuleRecordBatchResult.Outcome] {
        let payloads = try changes.map { change -> String? in
            guard change.upsert.deleted != true, let payload = change.upsert.payload else { return nil }
            return try JSONCoding.string(payload)
        }
        return try await transaction { connection in
            try await Self.lockPerson(userId, .records, on: connection, logger: logger)
            var sequence: Int64 = try await connection.query("""
                SELECT COALESCE(MAX(sequence), 0) AS last FROM module_records WHERE user_id = \(userId)
                """, logger: logger).collect()[0].makeRandomAccess().value("last")
            var outcomes: [ModuleRecordBatchResult.Outcome] = []
            for (change, payload) in zip(changes, payloads) {
                // An equal time keeps what the server has, so a repeated push is harmless.
                let written = try await connection.query("""
                    INSERT INTO module_records (user_id, module_id, client_id, updated_at, deleted, payload, sequence)
                    VALUES (\(userId), \(change.upsert.moduleId), \(change.upsert.clientId), \(change.updatedAt.timeIntervalSince1970),
                            \(change.upsert.deleted == true), \(payload), \(sequence + 1))
                    ON CONFLICT (user_id, module_id, client_id) DO UPDATE SET updated_at = excluded.updated_at,
                        deleted = excluded.deleted, payload = excluded.payload, sequence = excluded.sequence
                    WHERE module_records.updated_at < excluded.updated_at
                    RETURNING sequence
                    """, logger: logger).collect()
                if written.isEmpty {
                    outcomes.append(.stale)
                } else {
                    sequence += 1
                    outcomes.append(.applied)
                }
            }
            return outcomes
        }
    }

    public func records(userId: Int64, after cursor: Int64, moduleId: ModuleID?, updatedSince: Date?,
                        limit: Int) async throws -> (records: [ModuleRecord], cursor: Int64, more: Bool) {
        let rows = try await rows("""
            SELECT module_id, client_id, updated_at, deleted, payload, sequence FROM module_records
            WHERE user_id = \(userId) AND sequence > \(cursor)
              AND (\(moduleId?.rawValue)::text IS NULL OR module_id = \(moduleId?.rawValue))
              AND (\(updatedSince?.timeIntervalSince1970)::double precision IS NULL OR updated_at >= \(updatedSince?.timeIntervalSince1970))
            ORDER BY sequence LIMIT \(Int64(limit) + 1)
            """)
        let page = try rows.prefix(limit).map { row in (try row.value("sequence", as: Int64.self), try Self.moduleRecord(row)) }
        return (page.map(\.1), page.last?.0 ?? cursor, rows.count > limit)
    }

    public func record(userId: Int64, moduleId: String, clientId: String) async throws -> ModuleRecord? {
        try await rows("""
            SELECT module_id, client_id, updated_at, deleted, payload FROM module_records
            WHERE user_id = \(userId) AND module_id = \(moduleId) AND client_id = \(clientId)
            """).first.map(Self.moduleRecord)
    }

    /// A row of `module_records` as its owner pulls it.
    static func moduleRecord(_ row: PostgresRandomAccessRow) throws -> ModuleRecord {
        let payload: String? = try row.value("payload")
        return ModuleRecord(
            moduleId: try row.value("module_id"), clientId: try row.value("client_id"),
            updatedAt: Timestamps.formatMilliseconds(Date(timeIntervalSince1970: try row.value("updated_at"))),
            deleted: try row.value("deleted"), payload: try payload.map { try JSONCoding.decode(JSONValue.self, from: $0) })
    }
}
