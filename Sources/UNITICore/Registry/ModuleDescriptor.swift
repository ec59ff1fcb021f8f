/// Who a feature module is: the facts the registry, `modules`, `status` and `about` show.
public struct ModuleDescriptor: Sendable, Codable, Hashable {
    /// Short lowercase id, used as command prefix (`tyt fill`) and table prefix (`tyt_`).
    public let id: String
    /// The module's name, e.g. "TrackYourTinnitus".
    public let name: String
    /// Name of the standalone program built from this module, e.g. "track-your-tinnitus".
    public let programName: String
    /// The module's own version.
    public let version: String

    public init(id: String, name: String, programName: String, version: String) {
        self.id = id
        self.name = name
        self.programName = programName
        self.version = version
    }

    /// One-line summary in the current language (string table key `<id>.summary`).
    public var summary: String { L("\(id).summary") }
}
