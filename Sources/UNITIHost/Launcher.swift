import ArgumentParser
import Foundation
import UNITICore

/// The options every UNITI program takes, before any command.
struct ProgramOptions: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Launcher.programName.value,
            abstract: L("host.program.abstract"),
            discussion: L("host.program.discussion")
        )
    }

    @Option(name: [.customShort("c"), .customLong("command")], help: ArgumentHelp(L("host.option.command")))
    var command: String?

    @Option(name: .customLong("script"), help: ArgumentHelp(L("host.option.script"), valueName: "file"))
    var script: String?

    @Option(name: .customLong("data-dir"), help: ArgumentHelp(L("host.option.dataDir"), valueName: "path"))
    var dataDirectory: String?

    @Option(name: .customLong("lang"), help: ArgumentHelp(L("host.option.lang"), valueName: "en|de"))
    var language: String?

    @Option(name: .customLong("server"), help: ArgumentHelp(L("host.option.server"), valueName: "url"))
    var server: String?

    @Flag(name: .customLong("json"), help: ArgumentHelp(L("host.option.json")))
    var json = false

    @Flag(name: .customLong("version"), help: ArgumentHelp(L("host.option.version")))
    var version = false
}

/// Starts a UNITI program: checks that the binary is the right kind of build, reads the global
/// options, opens the data directory and database, and runs the shell in the mode asked for
/// (`-c`, `--script`, piped standard input, or the interactive REPL).
public enum Launcher {
    static let programName = LockedValue("uniti")

    /// The host shell with all modules; `main.swift` of `uniti`.
    public static func runHost(modules: [any UNITIModule]) -> Never {
        programName.value = "uniti"
        guard BuildKind.current == .integrated else {
            FileHandle.standardError.write(Data("""
                uniti: this binary is a standalone build (compiled without the INTEGRATED trait); \
                build the host with `swift build` (or Scripts/run).\n
                """.utf8))
            exit(2)
        }
        exit(run(kind: .host(programName: "uniti"), modules: modules, arguments: Array(CommandLine.arguments.dropFirst())))
    }

    /// One module as a program of its own; `main.swift` of each standalone target.
    public static func runStandalone(module: any UNITIModule) -> Never {
        let name = module.descriptor.programName
        programName.value = name
        guard BuildKind.current == .standalone else {
            FileHandle.standardError.write(Data("""
                \(name): this binary is an integrated build (compiled with the INTEGRATED trait); \
                build the standalone programs with `Scripts/build-standalone` (swift build --disable-default-traits).\n
                """.utf8))
            exit(2)
        }
        exit(run(kind: .standalone(module), modules: [module], arguments: Array(CommandLine.arguments.dropFirst())))
    }

    public static func versionLine(programName: String) -> String {
        "\(programName) \(UNITIVersion.string) (\(L("core.buildKind.\(BuildKind.current.rawValue)")))"
    }

    /// The shell's own commands for a kind of program.
    static func hostCommands(for kind: ProgramKind) -> [any HostCommand.Type] {
        var commands: [any HostCommand.Type] = [HelpCommand.self, ModulesCommand.self]
        if !kind.isStandalone {
            commands += [UseCommand.self, BackCommand.self]
        }
        commands += [
            RegisterCommand.self, ActivateCommand.self, LoginCommand.self, LogoutCommand.self,
            PasswordCommand.self, ProfileCommand.self, AccountCommand.self,
            StudiesCommand.self, StudyCommand.self, SyncCommand.self, ConfigCommand.self,
        ]
        commands += [QuestionnaireCommand.self, RemindersCommand.self]
        commands += [StatusCommand.self, LanguageCommand.self, VersionCommand.self, ExitCommand.self]
        return commands
    }

    /// Runs a program and returns its exit status.
    static func run(kind: ProgramKind, modules: [any UNITIModule], arguments: [String]) -> Int32 {
        umask(0o077)  // every file UNITI creates (database, WAL, history) is the owner's alone
        let environment = ProcessInfo.processInfo.environment
        CurrentLanguage.value = Language.fromEnvironment(environment) ?? .english

        let options: ProgramOptions
        do {
            options = try ProgramOptions.parse(arguments)
        } catch {
            let code = ProgramOptions.exitCode(for: error)
            let message = ProgramOptions.fullMessage(for: error)
            if code == .success {
                print(message)
            } else {
                FileHandle.standardError.write(Data("\(kind.programName): \(message)\n".utf8))
            }
            return code.rawValue
        }
        if options.version {
            print(versionLine(programName: kind.programName))
            return 0
        }
        var languageOption: Language?
        if let code = options.language {
            guard let language = Language(code: code) else {
                FileHandle.standardError.write(Data("\(kind.programName): \(L("host.language.unknown", ["code": code, "accepted": "en, de"]))\n".utf8))
                return 64
            }
            languageOption = language
            CurrentLanguage.value = language
        }

        let commands = hostCommands(for: kind)
        let shell: Shell
        let editor: LineEditor?
        do {
            let reserved = Set(commands.flatMap { [$0.commandName] + $0.configuration.aliases })
            let registry = try ModuleRegistry(modules, reservedNames: reserved, commandsAtTopLevel: kind.isStandalone)
            let dataDirectory = DataDirectory.resolve(option: options.dataDirectory, environment: environment)
            try dataDirectory.create()
            let database = try AppDatabase(path: dataDirectory.databasePath, migrationSets: registry.migrationSets)
            let stored = try SettingsStore(database: database).string(LanguageSetting.key)
            CurrentLanguage.value = LanguageSetting.resolve(option: languageOption, stored: stored, environment: environment)

            let interactive = options.script == nil && isatty(STDIN_FILENO) == 1
            let input: any LineInput
            if interactive {
                let lineEditor = LineEditor(programName: kind.programName, historyPath: dataDirectory.historyPath)
                editor = lineEditor
                input = lineEditor
            } else if let script = options.script {
                guard let file = fopen(script, "r") else {
                    throw UNITIError(L("host.error.scriptUnreadable", ["path": script, "reason": String(cString: strerror(errno))]))
                }
                editor = nil
                input = StreamInput(file: file, echoPrompts: true)
            } else {
                editor = nil
                input = StreamInput(file: fdopen(STDIN_FILENO, "r"), echoPrompts: true)
            }
            let services = CoreServices(dataDirectory: dataDirectory, database: database, console: .standard(),
                                        input: input, clock: SystemClock(), prefersJSON: options.json)
            shell = Shell(registry: registry, services: services, kind: kind, hostCommands: commands)
            shell.serverOverride = options.server
            editor?.completer = { [unowned shell] words, _ in shell.completions(after: words) }
        } catch {
            let message = (error as? UNITIError)?.message ?? "\(error)"
            FileHandle.standardError.write(Data("\(kind.programName): \(message)\n".utf8))
            return 70
        }

        if let command = options.command {
            let status: Int32 = shell.execute(line: command) == .failure ? 1 : 0
            shell.waitForBackgroundSync()
            return status
        }
        if editor != nil { shell.syncInBackground() }  // catch up at start, without blocking the prompt
        let status = REPL(shell: shell, editor: editor).run()
        shell.waitForBackgroundSync()
        return status
    }
}
