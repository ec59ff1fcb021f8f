import UNITICore

/// The ShadesOfNoise feature module (`son`). See the string table key `son.about` for what it offers.
public struct ShadesOfNoiseModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "son",
        name: "ShadesOfNoise",
        programName: "shades-of-noise",
        version: "0.1.0"
    )

    public var commands: [any ShellCommand.Type] {
        [AboutModuleCommand.self]
    }
}
