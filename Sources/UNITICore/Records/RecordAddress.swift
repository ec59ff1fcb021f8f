import UNITIProtocol

/// Where a synced record lives: its owner (a module, or the shell), its kind and its id. On the
/// wire the client id is `<kind>:<id>`, or `<kind>` alone for a kind with a single record
/// (`frequency`); the id may itself contain colons (`draft:tyt-momentary`).
public struct RecordAddress: Hashable, Sendable, CustomStringConvertible {
    public let owner: ModuleID
    public let kind: String
    public let id: String

    public init(owner: ModuleID, kind: String, id: String) {
        self.owner = owner
        self.kind = kind
        self.id = id
    }

    /// Reads a pulled record's address; nil when the owner is not a module id or the client id
    /// has no kind.
    public init?(owner: String, clientID: String) {
        guard let owner = ModuleID(rawValue: owner) else { return nil }
        let kind: Substring
        let id: Substring
        if let colon = clientID.firstIndex(of: ":") {
            kind = clientID[..<colon]
            id = clientID[clientID.index(after: colon)...]
        } else {
            kind = Substring(clientID)
            id = ""
        }
        guard Self.isValidKind(kind) else { return nil }
        self.init(owner: owner, kind: String(kind), id: String(id))
    }

    /// The record's client id on the wire.
    public var clientID: String { id.isEmpty ? kind : "\(kind):\(id)" }

    public var description: String { "\(owner)/\(clientID)" }

    /// 1–32 lowercase letters, digits and `-`.
    public static func isValidKind(_ kind: Substring) -> Bool {
        (1...32).contains(kind.utf8.count) && kind.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
        }
    }
}
