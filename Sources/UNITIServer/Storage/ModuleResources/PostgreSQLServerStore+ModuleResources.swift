import Foundation
import PostgresNIO
import UNITIProtocol

/// ``ModuleResourceStore`` on PostgreSQL: the twin of `SQLiteServerStore+ModuleResources.swift`.
extension PostgreSQLServerStore: ModuleResourceStore {
    static func resource(_ row: PostgresRandomAccessRow) throws -> StoredModuleResource {
        StoredModuleResource(moduleId: try row.value("module_id"), name: try row.value("name"),
                             content: try JSONCoding.decode(JSONValue.self, from: try row.value("content")),
                             updatedAt: Date(timeIntervalSince1970: try row.value("updated_at")))
    }

    public func putResource(moduleId: ModuleID, name: String, content: JSONValue, now: Date) async throws -> Bool {
        let text = try JSONCoding.string(content)
        // Equal content (sorted keys: equal text) changes nothing, not even the time.
        let written = try await rows("""
            INSERT INTO module_resources (module_id, name, content, updated_at)
            VALUES (\(moduleId.rawValue), \(name), \(text), \(now.timeIntervalSince1970))
            ON CONFLICT (module_id, name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at
            WHERE module_resources.content <> excluded.content
            RETURNING name
            """)
        return !written.isEmpty
    }

    public func resource(moduleId: ModuleID, name: String) async throws -> StoredModuleResource? {
        try await rows("""
            SELECT module_id, name, content, updated_at FROM module_resources WHERE module_id = \(moduleId.rawValue) AND name = \(name)
            """).first.map(Self.resource)
    }

    public func resources() async throws -> [StoredModuleResource] {
        try await rows("SELECT module_id, name, content, updated_at FROM module_resources ORDER BY module_id, name").map(Self.resource)
    }
}
