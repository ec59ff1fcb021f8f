import UNITICore

/// The TrackYourTinnitus feature module (`tyt`). See the string table key `tyt.about` for what it offers.
public struct TrackYourTinnitusModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "tyt",
        name: "TrackYourTinnitus",
        programName: "track-your-tinnitus",
        version: "0.1.0"
    )

    public var commands: [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }
}
