import UNITICore

/// The TinnitusNavigator feature module (`tn`). See the string table key `tn.about` for what it offers.
public struct TinnitusNavigatorModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.tn, version: "0.1.0")

    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }

    public var migrations: [ModuleMigration] { [] }
}
