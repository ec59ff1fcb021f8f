import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// The ShadesOfNoise feature module (`son`): sound stimulation with generated noise and
/// synthesized natural sounds, the CGI rating after listening, and listening statistics
/// (Shades Of Noise thesis, FA01–FA13 and the outlook: favourites, personal tinnitus frequency).
///
/// In both builds it offers the player and the statistics; sessions, favourites, the tinnitus
/// frequency and the profile answers follow the person through sync (``SonRecords``), and a
/// newer sound catalogue comes from the server. The standalone program adds what the host
/// provides in the integrated build (FA14–FA25): the start screen with guest use, the tinnitus
/// profile questionnaire and the settings pages (``SonBuild``).
public struct ShadesOfNoiseModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "son",
        name: "ShadesOfNoise",
        programName: "shades-of-noise",
        version: "0.2.0"
    )

    public var commands: [any ShellCommand.Type] {
        let shared: [any ShellCommand.Type] = [
            SoundsCommand.self, PlayCommand.self, StatsCommand.self, FrequencyCommand.self,
            FavoriteCommand.self, DevicesCommand.self, RenderCommand.self, AboutModuleCommand.self,
        ]
        return SonBuild.isIntegrated ? shared : shared + [TinnitusProfileCommand.self, SonSettingsCommand.self]
    }

    public var migrations: [ModuleMigration] { SonMigrations.all }

    public var offersGuestStart: Bool { !SonBuild.isIntegrated }

    public func applyPulledRecords(_ records: [ModuleRecord], in db: Database) throws {
        try SonRecords.apply(records, in: db)
    }

    public var serverResources: [String] { [SoundCatalogue.serverResourceName] }

    public func acceptServerResource(named name: String, data: Data, in db: Database) throws {
        guard name == SoundCatalogue.serverResourceName else { return }
        try SoundCatalogue.acceptFromServer(data, in: db)
    }
}
