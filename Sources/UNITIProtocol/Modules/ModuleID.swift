/// The id of a feature module (`tyt`, `son`, ...) or of the shell itself (``shell``), used as
/// command prefix (`tyt fill`), table prefix (`tyt_`), owner of synced records and sheets, and in
/// the studies a coordinator defines.
///
/// One rule for every place an id is checked (registry, studies, records, resources): 2–16
/// characters, a lowercase ASCII letter, then lowercase letters or digits. The known modules are
/// generated from `Modules/modules.json` (``ModuleCatalog``) as static members (`ModuleID.tyt`).
public struct ModuleID: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// An id that follows the rule; nil otherwise.
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// For ids written in the source (the generated list, ``shell``); checked in debug builds.
    public init(known rawValue: String) {
        assert(Self.isValid(rawValue), "invalid module id \(rawValue)")
        self.rawValue = rawValue
    }

    /// The shell's own data (the shared baseline, its drafts): not a module, but an owner like one.
    public static let shell = ModuleID(known: "uniti")

    /// Whether `text` follows the rule. (Checked by hand: a regular expression here would load
    /// ICU's regex engine at every start of the client.)
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (2...16).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The rule in words, for error messages.
    public static let ruleDescription = "2–16 lowercase letters or digits, starting with a letter"

    public var description: String { rawValue }

    public static func < (lhs: ModuleID, rhs: ModuleID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ModuleID(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "'\(text.prefix(32))' is not a module id (\(Self.ruleDescription))"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ModuleID: ExpressibleByStringLiteral {
    /// An id written in the source (`"tyt"`); checked like ``init(known:)``.
    public init(stringLiteral value: String) {
        self.init(known: value)
    }
}
