import Foundation
import UNITIProtocol

/// What a command runs with: its module and the core services.
///
/// Modules reach every shared service through this value (never through globals), which is
/// what lets tests hand a module a temporary database, a fixed clock, seeded chance, captured
/// output and either kind of program. The shell's own commands run with ``ModuleDescriptor/shell``.
///
/// Topics:
/// - who and where: ``module``, ``program``;
/// - storage: ``database``, ``settings`` and ``moduleSetting(_:)``, ``records`` (synced records);
/// - the person: ``console``, ``input``, ``localizer``;
/// - the server: ``sessions``, ``apiClient()``, ``outbox``;
/// - what tests decide: ``clock``, ``random``;
/// - questionnaires, answer sheets and sensors: ``questionnaires``, ``answerSheets`` (in
///   `Questionnaires/`) and ``sensors`` (in `Sensors/`).
public final class ModuleContext: Sendable {
    public let services: CoreServices
    /// The module the command belongs to (``ModuleDescriptor/shell`` for the shell's own).
    public let module: ModuleDescriptor

    public init(services: CoreServices, module: ModuleDescriptor) {
        self.services = services
        self.module = module
    }

    /// The kind of program running (integrated host or standalone program).
    public var program: ProgramKind { services.program }
    public var database: AppDatabase { services.database }
    public var settings: SettingsStore { services.settings }
    public var studies: StudyCatalog { services.studies }
    public var console: Console { services.console }
    public var input: any LineInput { services.input }
    public var clock: any WallClock { services.clock }
    public var random: any RandomSource { services.random }
    public var prefersJSON: Bool { services.prefersJSON }
    public var sessions: SessionStore { services.sessions }
    public var outbox: Outbox { services.outbox }

    /// A client for the configured server (honouring `--server`) with the session's token.
    public func apiClient() throws -> APIClient { try services.apiClient() }

    /// Syncs now and waits for it (see ``CoreServices/foregroundSync``); nil when nobody is
    /// logged in or the program cannot sync. Failures are in the report, never thrown.
    public func syncNow() -> SyncReport? { services.foregroundSync.value?() }

    /// This module's synced records: saved and queued in one transaction (see ``SyncedRecord``).
    public var records: SyncedRecords { SyncedRecords(owner: module.id, database: database, clock: clock) }

    /// Asks the shell to end the program once the running command returns.
    public func requestEndOfProgram() {
        services.endOfProgramRequested.value = true
    }

    /// Text in the current language.
    public var localizer: Localizer { CurrentLanguage.localizer }

    /// A setting of this module (`<id>.<key>`).
    public func moduleSetting(_ key: String) throws -> String? {
        try settings.string(settingKey(key))
    }

    public func setModuleSetting(_ key: String, to value: String?) throws {
        try settings.set(settingKey(key), to: value)
    }

    private func settingKey(_ key: String) -> String { "\(module.id).\(key)" }
}
