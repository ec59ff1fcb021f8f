import UNITICore

/// The TrackYourStress feature module (`tys`). See the string table key `tys.about` for what it offers.
public struct TrackYourStressModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.tys, version: "0.1.0")

    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }

    public var migrations: [ModuleMigration] { [] }
}
