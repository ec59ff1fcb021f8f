import GRDB

/// The last ETag seen per API route (Track Your Stress thesis, 5.3.6: one value per route),
/// sent back as `If-None-Match` so unchanged content costs a 304 and nothing else.
public struct ETagStore: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func etag(for route: String) throws -> String? {
        try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT etag FROM core_etags WHERE route = ?", arguments: [route])
        }
    }

    /// Stores the ETag of a route, in the caller's transaction (with the content it belongs to).
    public static func store(_ db: Database, etag: String?, for route: String) throws {
        if let etag {
            try db.execute(sql: """
                INSERT INTO core_etags(route, etag) VALUES (?, ?)
                ON CONFLICT(route) DO UPDATE SET etag = excluded.etag
                """, arguments: [route, etag])
        } else {
            try db.execute(sql: "DELETE FROM core_etags WHERE route = ?", arguments: [route])
        }
    }

    /// Forgets every ETag (after logging out or switching user).
    public func clear() throws {
        try database.writer.write { try $0.execute(sql: "DELETE FROM core_etags") }
    }
}
