/// A module UNITI knows: its id, its name (the Swift target, `TrackYourTinnitus`) and the name of
/// its standalone program (`track-your-tinnitus`).
public struct KnownModule: Sendable, Hashable {
    public let id: ModuleID
    public let name: String
    public let programName: String

    public init(id: ModuleID, name: String, programName: String) {
        self.id = id
        self.name = name
        self.programName = programName
    }
}

/// The modules UNITI knows, from the one list `Modules/modules.json` (the list itself, ``all``,
/// is generated at build time by the GeneratedSourcesPlugin). The client's registry, the server's
/// study rules, the scripts and the tests all derive from it.
public enum ModuleCatalog {
    /// The known module with this id, if any.
    public static func module(_ id: ModuleID) -> KnownModule? {
        all.first { $0.id == id }
    }

    /// The known module with this id, if `text` is one.
    public static func module(named text: String) -> KnownModule? {
        ModuleID(rawValue: text).flatMap(module)
    }

    /// The known ids, in list order.
    public static var ids: [ModuleID] { all.map(\.id) }
}
