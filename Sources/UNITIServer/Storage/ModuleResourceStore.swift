import Foundation
import GRDB
import UNITIProtocol

/// A resource a module may take from the server instead of its bundled copy, e.g. the sound
/// catalogue of Shades Of Noise (`son`/`sounds`). The server keeps the newest JSON document per
/// module and name as the coordinator put it; only the module can judge the content, so the
/// client checks it and keeps its previous one when it cannot use it.
public struct StoredModuleResource: Codable, Sendable, Equatable {
    public var moduleId: String
    public var name: String
    public var content: JSONValue
    public var updatedAt: Date
}

/// Where module resources are kept. Part of every ``ServerStore``.
public protocol ModuleResourceStore {
    /// Stores (or replaces) a resource; false when the same content was stored already.
    func putResource(moduleId: String, name: String, content: JSONValue, now: Date) async throws -> Bool
    func resource(moduleId: String, name: String) async throws -> StoredModuleResource?
    func resources() async throws -> [StoredModuleResource]
}

/// The names a module resource route accepts: like module ids, 1 to 32 lower-case letters,
/// digits and `-`.
enum ModuleResourceRules {
    static func isValidName(_ text: String) -> Bool {
        (1...32).contains(text.count) && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

/// The table behind ``ModuleResourceStore`` (an append-only step of ``ServerMigrations``).
enum ModuleResourceMigration {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-module-resources") { db in
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
}

extension SQLiteServerStore: ModuleResourceStore {
    public func putResource(moduleId: String, name: String, content: JSONValue, now: Date) async throws -> Bool {
        let text = try JSONCoding.string(content)
        return try await pool.write { db in
            let existing = try String.fetchOne(db, sql: "SELECT content FROM module_resources WHERE module_id = ? AND name = ?",
                                               arguments: [moduleId, name])
            if existing == text { return false }
            try db.execute(sql: """
                INSERT INTO module_resources (module_id, name, content, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (module_id, name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at
                """, arguments: [moduleId, name, text, now.timeIntervalSince1970])
            return true
        }
    }

    public func resource(moduleId: String, name: String) async throws -> StoredModuleResource? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM module_resources WHERE module_id = ? AND name = ?",
                             arguments: [moduleId, name]).map(Self.moduleResource)
        }
    }

    public func resources() async throws -> [StoredModuleResource] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM module_resources ORDER BY module_id, name").map(Self.moduleResource)
        }
    }

    private static func moduleResource(_ row: Row) throws -> StoredModuleResource {
        StoredModuleResource(moduleId: row["module_id"], name: row["name"],
                             content: try JSONCoding.decode(JSONValue.self, from: row["content"]),
                             updatedAt: Date(timeIntervalSince1970: row["updated_at"]))
    }
}
