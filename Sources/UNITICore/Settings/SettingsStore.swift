import GRDB

/// Small persistent settings as text, namespaced by owner: `language`, `tyt.noise`, ...
public struct SettingsStore: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func string(_ key: String) throws -> String? {
        try database.writer.read { db in try Self.read(db, key) }
    }

    public func set(_ key: String, to value: String?) throws {
        try database.writer.write { db in try Self.write(db, key, value) }
    }

    /// Reads a setting inside the caller's transaction (a migration step).
    public static func read(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM core_settings WHERE key = ?", arguments: [key])
    }

    /// Writes a setting inside the caller's transaction (e.g. together with an outbox entry).
    public static func write(_ db: Database, _ key: String, _ value: String?) throws {
        if let value {
            try db.execute(sql: """
                INSERT INTO core_settings(key, value) VALUES (?, ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, arguments: [key, value])
        } else {
            try db.execute(sql: "DELETE FROM core_settings WHERE key = ?", arguments: [key])
        }
    }
}
