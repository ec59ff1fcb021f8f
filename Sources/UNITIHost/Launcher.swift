import ArgumentParser
import Foundation
import UNITICore

/// The options every UNITI program takes, before any command.
///
/// Read by hand rather than with swift-argument-parser (which every command uses): these seven
/// options are read at every start, and the parser's reflection over a command type cost about
/// a fifth of the start-up time of `uniti -c modules` (measured with perf; see the README).
struct ProgramOptions: Equatable {
    var command: String?
    var script: String?
    var dataDirectory: String?
    var language: String?
    var server: String?
    var json = false
    var version = false
    var help = false

    /// A usage error: one line, and the status 64 (EX_USAGE).
    struct UsageError: Error, Equatable {
        let message: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> ProgramOptions {
        var options = ProgramOptions()
        var index = 0
        func value(for name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else {
                throw UsageError(message: L("host.option.missingValue", ["option": name]))
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            switch name {
            case "-c", "--command": options.command = try value(for: name, inline: inline)
            case "--script": options.script = try value(for: name, inline: inline)
            case "--data-dir": options.dataDirectory = try value(for: name, inline: inline)
            case "--lang": options.language = try value(for: name, inline: inline)
            case "--server": options.server = try value(for: name, inline: inline)
            case "--json": options.json = true
            case "--version": options.version = true
            case "-h", "--help": options.help = true
            default:
                if argument.hasPrefix("-") {
                    throw UsageError(message: L("host.option.unknown", ["option": argument]))
                }
                throw UsageError(message: L("host.option.unexpected", ["argument": argument]))
            }
            index += 1
        }
        if options.command != nil, options.script != nil {
            throw UsageError(message: L("host.option.commandAndScript"))
        }
        return options
    }

    /// The text of `--help`.
    static func helpText(programName: String) -> String {
        let rows: [(String, String)] = [
            ("-c, --command <command>", L("host.option.command")),
            ("--script <file>", L("host.option.script")),
            ("--data-dir <path>", L("host.option.dataDir")),
            ("--lang <en|de>", L("host.option.lang")),
            ("--server <url>", L("host.option.server")),
            ("--json", L("core.option.json")),
            ("--version", L("host.option.version")),
            ("-h, --help", L("host.option.help")),
        ]
        var text = "\(programName): \(L("host.program.abstract"))\n\n"
        text += L("host.program.usage", ["program": programName]) + "\n\n"
        text += L("host.program.options") + "\n"
        // Option names 24 columns wide, as argument-parser lays out the help of each command.
        let table = TextTable(columns: [.init(minimumWidth: 24)], rows: rows.map { [$0.0, $0.1] })
        text += table.lines().map { $0 + "\n" }.joined()
        text += "\n" + L("host.program.discussion")
        return text
    }
}

// The build kind, read from the compile-time flag here and nowhere else (as in the Shades Of
// Noise thesis, ch. 5.3, where `-DINTEGRATED` selects the build; here the package trait
// INTEGRATED, which SwiftPM passes to the compiler the same way). Everything else learns the
// kind of program from `ProgramKind`, handed out at launch.
#if INTEGRATED
let IS_INTEGRATED_VERSION = true
#else
let IS_INTEGRATED_VERSION = false
#endif

/// Starts a UNITI program: checks that the binary is the right kind of build, reads the global
/// options, opens the data directory and database, and runs the shell in the mode asked for
/// (`-c`, `--script`, piped standard input, or the interactive REPL).
public enum Launcher {
    /// The kind of program this binary was compiled as.
    public static let compiledKind: ProgramKind = IS_INTEGRATED_VERSION ? .integrated : .standalone

    /// The host shell with all modules; `main.swift` of `uniti`.
    public static func runHost(modules: [any UNITIModule]) -> Never {
        guard compiledKind == .integrated else {
            FileHandle.standardError.write(Data("""
                uniti: this binary is a standalone build (compiled without the INTEGRATED trait); \
                build the host with `swift build` (or Scripts/run).\n
                """.utf8))
            exit(2)
        }
        exit(run(.host(programName: "uniti"), modules: modules, arguments: Array(CommandLine.arguments.dropFirst())))
    }

    /// One module as a program of its own; `main.swift` of each standalone target.
    public static func runStandalone(module: any UNITIModule) -> Never {
        let name = module.descriptor.programName
        guard compiledKind == .standalone else {
            FileHandle.standardError.write(Data("""
                \(name): this binary is an integrated build (compiled with the INTEGRATED trait); \
                build the standalone programs with `Scripts/build-standalone` (swift build --disable-default-traits).\n
                """.utf8))
            exit(2)
        }
        exit(run(.standalone(module), modules: [module], arguments: Array(CommandLine.arguments.dropFirst())))
    }

    public static func versionLine(programName: String, kind: ProgramKind) -> String {
        "\(programName) \(UNITIVersion.string) (\(kind.localizedName))"
    }

    /// The shell's own commands for a kind of program.
    public static func hostCommands(for program: ShellProgram) -> [any HostCommand.Type] {
        var commands: [any HostCommand.Type] = [HelpCommand.self, ModulesCommand.self]
        if !program.isStandalone {
            commands += [UseCommand.self, BackCommand.self]
        }
        // Standalone programs bring their own baseline (Track Your Tinnitus thesis, FR8).
        let baseline: [any HostCommand.Type] = program.isStandalone ? [] : [BaselineHostCommand.self]
        commands += [
            RegisterCommand.self, ActivateCommand.self, LoginCommand.self, LogoutCommand.self,
            PasswordCommand.self, ProfileCommand.self, AccountCommand.self,
            StudiesCommand.self, StudyCommand.self, SyncCommand.self, ConfigCommand.self,
        ]
        commands += baseline + [QuestionnaireCommand.self, RemindersCommand.self, AdherenceCommand.self, SensorsCommand.self]
        commands += [StatusCommand.self, LanguageCommand.self, VersionCommand.self, ExitCommand.self]
        return commands
    }

    /// Runs a program and returns its exit status.
    static func run(_ program: ShellProgram, modules: [any UNITIModule], arguments: [String]) -> Int32 {
        umask(0o077)  // every file UNITI creates (database, WAL, history) is the owner's alone
        let environment = ProgramEnvironment.current()
        CurrentLanguage.value = Language.fromEnvironment(environment) ?? .english

        let options: ProgramOptions
        do {
            options = try ProgramOptions.parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("\(program.programName): \(error.message)\n".utf8))
            return 64
        }
        if options.help {
            print(ProgramOptions.helpText(programName: program.programName))
            return 0
        }
        if options.version {
            print(versionLine(programName: program.programName, kind: program.kind))
            return 0
        }
        var languageOption: Language?
        if let code = options.language {
            guard let language = Language(code: code) else {
                FileHandle.standardError.write(Data("\(program.programName): \(L("host.language.unknown", ["code": code, "accepted": "en, de"]))\n".utf8))
                return 64
            }
            languageOption = language
            CurrentLanguage.value = language
        }

        let commands = hostCommands(for: program)
        let shell: Shell
        let editor: LineEditor?
        do {
            let index = Shell.index(of: commands)
            let registry = try ModuleRegistry(modules, program: program.kind, reservedNames: Set(index.keys))
            let dataDirectory = DataDirectory.resolve(option: options.dataDirectory, environment: environment)
            try dataDirectory.create()
            let database = try AppDatabase(path: dataDirectory.databasePath, migrationSets: registry.migrationSets)
            let stored = try SettingsStore(database: database).string(LanguageSetting.key)
            CurrentLanguage.value = LanguageSetting.resolve(option: languageOption, stored: stored, environment: environment)

            let interactive = options.script == nil && isatty(STDIN_FILENO) == 1
            let input: any LineInput
            if interactive {
                let lineEditor = LineEditor(programName: program.programName, historyPath: dataDirectory.historyPath)
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
            let clock: any WallClock = try ShiftedClock.fromEnvironment() ?? SystemClock()
            let services = CoreServices(dataDirectory: dataDirectory, database: database, console: .standard(),
                                        input: input, clock: clock,
                                        random: SystemRandomSource(),
                                        program: program.kind, prefersJSON: options.json, serverOverride: options.server)
            shell = Shell(registry: registry, services: services, program: program, hostCommands: commands, index: index)
            try shell.prepare()
            editor?.completer = { [unowned shell] words, partial in shell.completions(after: words, partial: partial) }
        } catch {
            let message = (error as? UNITIError)?.message ?? "\(error)"
            FileHandle.standardError.write(Data("\(program.programName): \(message)\n".utf8))
            return 70
        }

        let status: Int32
        if let command = options.command {
            status = shell.execute(line: command) == .failure ? 1 : 0
        } else {
            if editor != nil { shell.syncInBackground() }  // catch up at start, without blocking the prompt
            status = REPL(shell: shell, editor: editor).run()
        }
        shell.waitForBackgroundSync()
        finish(shell)
        return status
    }

    /// The shell of the program that is ending, kept so that nothing is torn down on the way
    /// out (the process's memory goes with it; tearing down GRDB's dispatch queue would start
    /// threads just to end them).
    nonisolated(unsafe) private static var ending: Shell?

    /// Closes the database cleanly (SQLite checkpoints and removes its log when this is the
    /// last program on the data directory) and keeps the rest for `exit`.
    private static func finish(_ shell: Shell) {
        try? shell.services.database.writer.close()
        ending = shell
    }
}
