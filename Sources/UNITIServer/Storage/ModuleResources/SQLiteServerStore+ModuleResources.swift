import Foundation
import GRDB
import UNITIProtocol

/// The table behind ``ModuleResourceStore`` (steps of ``ServerMigrations``; never edit a shipped step).
enum ModuleResourceSchema {
    /// `v2-module-resources`.
    static func v2(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE module_resources (
                module_id TEXT NOT NULL,
                name TEXT NOT NULL,
                content TEXT NOT NULL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (module_id, name)
            );
            """)
    }
}

/// A row of `module_resources`; the content is JSON with sorted keys, so equal content is equal text.
struct ModuleResourceRow: FetchableRecord {
    var resource: StoredModuleResource

    init(row: Row) throws {
        resource = StoredModuleResource(moduleId: row["module_id"], name: row["name"],
                                        content: try JSONCoding.decode(JSONValue.self, from: row["content"]),
                                        updatedAt: Date(timeIntervalSince1970: row["updated_at"]))
    }
}

extension SQLiteServerStore: ModuleResourceStore {
    public func putResource(moduleId: ModuleID, name: String, content: JSONValue, now: Date) async throws -> Bool {
        let text = try JSONCoding.string(content)
        return try await pool.write { db in
            let existing = try String.fetchOne(db, sql: "SELECT content FROM module_resources WHERE module_id = ? AND name = ?",
                                               arguments: [moduleId.rawValue, name])
            if existing == text { return false }
            try db.execute(sql: """
                INSERT INTO module_resources (module_id, name, content, updated_at) VALUES (:moduleId, :name, :content, :updatedAt)
                ON CONFLICT (module_id, name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at
                """, arguments: ["moduleId": moduleId.rawValue, "name": name, "content": text, "updatedAt": now.timeIntervalSince1970])
            return true
        }
    }

    public func resource(moduleId: ModuleID, name: String) async throws -> StoredModuleResource? {
        try await pool.read { db in
            try ModuleResourceRow.fetchOne(db, sql: "SELECT * FROM module_resources WHERE module_id = ? AND name = ?",
                                           arguments: [moduleId.rawValue, name])?.resource
        }
    }

    public func resources() async throws -> [StoredModuleResource] {
        try await pool.read { db in
            try ModuleResourceRow.fetchAll(db, sql: "SELECT * FROM module_resources ORDER BY module_id, name").map(\.resource)
        }
    }
}
