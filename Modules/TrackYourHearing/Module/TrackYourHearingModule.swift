import UNITICore

/// The TrackYourHearing feature module (`tyh`). See the string table key `tyh.about` for what it offers.
public struct TrackYourHearingModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.tyh, version: "0.1.0")

    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }

    public var migrations: [ModuleMigration] { [] }
}
