import Foundation

/// The core services every module may use, created once per process by the shell.
public final class CoreServices: Sendable {
    public let dataDirectory: DataDirectory
    public let database: AppDatabase
    public let settings: SettingsStore
    public let studies: StudyCatalog
    public let console: Console
    public let input: any LineInput
    public let clock: any WallClock
    /// Where chance comes from (reminder times); seeded in tests.
    public let random: any RandomSource
    /// Set by the global `--json` option: listing commands print JSON.
    public let prefersJSON: Bool
    /// Set by a module command that ends the program after it (a standalone program closes
    /// after a saved check-in, Track Your Tinnitus thesis 3); the shell stops when it sees it.
    public let endOfProgramRequested = LockedValue(false)

    public init(dataDirectory: DataDirectory, database: AppDatabase, console: Console,
                input: any LineInput, clock: any WallClock, prefersJSON: Bool = false,
                random: any RandomSource = SystemRandomSource()) {
        self.random = random
        self.prefersJSON = prefersJSON
        self.dataDirectory = dataDirectory
        self.database = database
        self.settings = SettingsStore(database: database)
        self.studies = StudyCatalog(database: database)
        self.console = console
        self.input = input
        self.clock = clock
    }
}

/// What a command runs with: the core services and, for a module's command, its module.
///
/// Modules reach every shared service through this value (never through globals), which is
/// what lets tests hand a module a temporary database, a fixed clock and captured output.
public final class ModuleContext: Sendable {
    public let services: CoreServices
    /// The module the command belongs to; nil for the shell's own commands.
    public let module: ModuleDescriptor?

    public init(services: CoreServices, module: ModuleDescriptor?) {
        self.services = services
        self.module = module
    }

    public var database: AppDatabase { services.database }
    public var settings: SettingsStore { services.settings }
    public var studies: StudyCatalog { services.studies }
    public var console: Console { services.console }
    public var input: any LineInput { services.input }
    public var clock: any WallClock { services.clock }
    public var random: any RandomSource { services.random }
    public var buildKind: BuildKind { BuildKind.current }

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

    private func settingKey(_ key: String) -> String {
        if let module { return "\(module.id).\(key)" }
        return key
    }
}
