import UNITICore

/// The TrackYourStress feature module (`tys`). See the string table key `tys.about` for what it offers.
public struct TrackYourStressModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "tys",
        name: "TrackYourStress",
        programName: "track-your-stress",
        version: "0.1.0"
    )

    public var commands: [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }
}
