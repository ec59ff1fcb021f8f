import Foundation
import UNITIProtocol


/// A module resource as stored.
public struct StoredModuleResource: Codable, Sendable, Equatable {
    /// Kept as text: resources put before module ids had one rule are listed as they were stored.
    public var moduleId: String
    public var name: String
    public var content: JSONValue
    public var updatedAt: Date
}

/// The names a module resource route or command accepts (the module part is a ``ModuleID``):
/// 1 to 32 lower-case letters, digits and `-`.
enum ModuleResourceRules {
    static let nameDescription = "1 to 32 lower-case letters, digits or '-'"

    static func isValidName(_ text: String) -> Bool {
        (1...32).contains(text.count) && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

/// Module resources: what a module may take from the server instead of its bundled copy, e.g.
/// the sound catalogue of Shades Of Noise (`son`/`sounds`). The server keeps the newest JSON
/// document per module and name as the coordinator put it; only the module can judge the content,
/// so the client checks it and keeps its previous one when it cannot use it.
///
/// The table `module_resources`: the content is JSON with sorted keys, so equal content is equal text.
extension ServerStore {
    /// Stores (or replaces) a resource; false when the same content was stored already (which
    /// changes nothing, not even the time).
    func putResource(moduleId: ModuleID, name: String, content: JSONValue, now: Date) async throws -> Bool {
        let text = try JSONCoding.string(content)
        return try await !database.rowsWritten("""
            INSERT INTO module_resources (module_id, name, content, updated_at) VALUES (\(moduleId.rawValue), \(name), \(text), \(now))
            ON CONFLICT (module_id, name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at
            WHERE module_resources.content <> excluded.content
            RETURNING name
            """).isEmpty
    }

    func resource(moduleId: ModuleID, name: String) async throws -> StoredModuleResource? {
        try await database.row("\(Self.selectResources) WHERE module_id = \(moduleId.rawValue) AND name = \(name)").map(Self.resource)
    }

    /// Every resource, by module and name.
    func resources() async throws -> [StoredModuleResource] {
        try await database.rows("\(Self.selectResources) ORDER BY module_id, name").map(Self.resource)
    }

    private static let selectResources: SQL = "SELECT module_id, name, content, updated_at FROM module_resources"

    private static func resource(_ row: SQLRow) throws -> StoredModuleResource {
        try row.decode(StoredModuleResource.self)
    }
}
