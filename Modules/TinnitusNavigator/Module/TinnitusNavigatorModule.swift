import UNITICore

/// The TinnitusNavigator feature module (`tn`). See the string table key `tn.about` for what it offers.
public struct TinnitusNavigatorModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "tn",
        name: "TinnitusNavigator",
        programName: "tinnitus-navigator",
        version: "0.1.0"
    )

    public var commands: [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }
}
