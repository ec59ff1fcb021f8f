import Foundation
import UNITIProtocol

/// Where module resources are kept. Part of every ``ServerStore``.
///
/// A module resource is what a module may take from the server instead of its bundled copy, e.g.
/// the sound catalogue of Shades Of Noise (`son`/`sounds`). The server keeps the newest JSON
/// document per module and name as the coordinator put it; only the module can judge the content,
/// so the client checks it and keeps its previous one when it cannot use it.
public protocol ModuleResourceStore: Sendable {
    /// Stores (or replaces) a resource; false when the same content was stored already.
    func putResource(moduleId: ModuleID, name: String, content: JSONValue, now: Date) async throws -> Bool
    func resource(moduleId: ModuleID, name: String) async throws -> StoredModuleResource?
    /// Every resource, by module and name.
    func resources() async throws -> [StoredModuleResource]
}

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
