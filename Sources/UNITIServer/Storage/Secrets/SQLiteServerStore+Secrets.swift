import Foundation
import GRDB

/// The table behind ``ServerSecretStore`` (a step of ``ServerMigrations``; never edit a shipped step).
enum ServerSecretSchema {
    /// `v6-server-secrets`: server-wide keys, one row per name, never per user.
    static func v6(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE server_secrets (
                name TEXT PRIMARY KEY,
                value BLOB NOT NULL,
                created_at REAL NOT NULL
            )
            """)
    }
}

extension SQLiteServerStore: ServerSecretStore {
    public func secret(named name: String, orStore make: @Sendable () -> Data) async throws -> Data {
        if let found = try await pool.read({ db in
            try Data.fetchOne(db, sql: "SELECT value FROM server_secrets WHERE name = ?", arguments: [name])
        }) {
            return found
        }
        let fresh = make()
        // INSERT OR IGNORE, then read back: the first writer wins, a racing one adopts its value.
        return try await pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO server_secrets (name, value, created_at) VALUES (?, ?, ?)",
                           arguments: [name, fresh, Date().timeIntervalSince1970])
            guard let stored = try Data.fetchOne(db, sql: "SELECT value FROM server_secrets WHERE name = ?", arguments: [name]) else {
                throw DatabaseError(message: "server secret \(name) vanished right after it was stored")
            }
            return stored
        }
    }
}
