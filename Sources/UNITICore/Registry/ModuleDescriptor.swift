import UNITIProtocol

/// Who a feature module is: the facts the registry, `modules`, `status` and `about` show.
public struct ModuleDescriptor: Sendable, Codable, Hashable {
    /// Short lowercase id, used as command prefix (`tyt fill`), table prefix (`tyt_`) and owner
    /// of the module's synced records and sheets.
    public let id: ModuleID
    /// The module's name, e.g. "TrackYourTinnitus".
    public let name: String
    /// Name of the standalone program built from this module, e.g. "track-your-tinnitus".
    public let programName: String
    /// The module's own version.
    public let version: String

    /// A module of the one list (`Modules/modules.json`): name and program come from there.
    public init(_ id: ModuleID, version: String) {
        guard let known = ModuleCatalog.module(id) else {
            preconditionFailure("module \(id) is not in Modules/modules.json")
        }
        self.init(id: id, name: known.name, programName: known.programName, version: version)
    }

    /// Any module, also one outside the list (test modules).
    public init(id: ModuleID, name: String, programName: String, version: String) {
        self.id = id
        self.name = name
        self.programName = programName
        self.version = version
    }

    /// The shell itself, for its own commands and for what it owns (the shared baseline).
    public static let shell = ModuleDescriptor(id: .shell, name: "UNITI", programName: "uniti", version: UNITIVersion.string)

    /// One-line summary in the current language (string table key `<id>.summary`).
    public var summary: String { L("\(id).summary") }
}
