import UNITICore

/// The ShadesOfNoise feature module (`son`): sound stimulation with generated noise and
/// synthesized natural sounds, the CGI rating after listening, and listening statistics
/// (Shades Of Noise thesis, FA01–FA13 and the outlook: favourites, personal tinnitus frequency).
///
/// In both builds it offers the player and the statistics. The standalone-only features of the
/// thesis (own login, guest use, profile questionnaire, settings) are not part of it yet.
public struct ShadesOfNoiseModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "son",
        name: "ShadesOfNoise",
        programName: "shades-of-noise",
        version: "0.1.0"
    )

    public var commands: [any ShellCommand.Type] {
        [SoundsCommand.self, PlayCommand.self, StatsCommand.self, FrequencyCommand.self,
         FavoriteCommand.self, DevicesCommand.self, RenderCommand.self, AboutModuleCommand.self]
    }

    public var migrations: [ModuleMigration] { SonMigrations.all }
}
