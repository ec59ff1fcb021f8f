import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// The ShadesOfNoise feature module (`son`): sound stimulation with generated noise and
/// synthesized natural sounds, the CGI rating after listening, and listening statistics
/// (Shades Of Noise thesis, FA01–FA13 and the outlook: favourites, personal tinnitus frequency).
///
/// In both builds it offers the player and the statistics; sessions, favourites, the tinnitus
/// frequency and the profile answers follow the person as synced records, and a newer sound
/// catalogue comes from the server. The standalone program adds what the host provides in the
/// integrated build (FA14–FA25): the start screen with guest use, the tinnitus profile
/// questionnaire and the settings pages (``commands(for:)``, the one place the module asks
/// which kind of program it runs in; thesis 6.4 and 6.5).
public struct ShadesOfNoiseModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.son, version: "0.3.0")

    /// Integrated (thesis 6.5): the host owns login, profile, questionnaires and settings, so
    /// the module offers the player and the statistics only. Standalone (thesis 6.4): the
    /// tinnitus profile questionnaire and the settings pages as well.
    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        let shared: [any ShellCommand.Type] = [
            SoundsCommand.self, PlayCommand.self, StatsCommand.self, FrequencyCommand.self,
            FavoriteCommand.self, DevicesCommand.self, RenderCommand.self, AboutModuleCommand.self,
        ]
        return program == .integrated ? shared : shared + [TinnitusProfileCommand.self, SonSettingsCommand.self]
    }

    public var migrations: [ModuleMigration] { SonMigrations.all }
}

extension ShadesOfNoiseModule: StartScreenOffering {
    /// The standalone program opens with the start screen, guest use included (FA20).
    public func startScreen(in program: ProgramKind) -> StartScreenChoices? {
        program == .standalone ? .accountOrGuest : nil
    }
}

extension ShadesOfNoiseModule: RecordSyncing {
    public var syncedRecordTypes: [any SyncedRecord.Type] { [ListeningSession.self, FavoriteSound.self, TinnitusFrequency.self] }
}

extension ShadesOfNoiseModule: ServerResourceConsuming {
    public var serverResources: [String] { [SoundCatalogue.serverResourceName] }

    public func acceptServerResource(named name: String, data: Data, receivedAt date: Date, in db: Database) throws {
        guard name == SoundCatalogue.serverResourceName else { return }
        try SoundCatalogue.acceptFromServer(data, receivedAt: date, in: db)
    }
}
