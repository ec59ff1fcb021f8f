import UNITICore

/// The TrackYourHearing feature module (`tyh`). See the string table key `tyh.about` for what it offers.
public struct TrackYourHearingModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "tyh",
        name: "TrackYourHearing",
        programName: "track-your-hearing",
        version: "0.1.0"
    )

    public var commands: [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }
}
