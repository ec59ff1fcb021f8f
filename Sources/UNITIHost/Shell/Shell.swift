import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// The command shell shared by `uniti` and every standalone program: it resolves a line to a
/// host or module command, parses it with swift-argument-parser, runs it with its context, and
/// turns every failure into one line on standard error.
///
/// Resolution, in order: inside a module (`use tyt`), that module's commands (`fill`); the
/// shell's own commands (`help`, `modules`, ...); a module id followed by its command
/// (`tyt fill`). A standalone program has its module's commands at top level.
/// Used from the thread that runs the REPL only (hence unchecked Sendable).
public final class Shell: @unchecked Sendable {
    public let registry: ModuleRegistry
    public let services: CoreServices
    /// The program the shell is (the host, or one module's standalone program).
    public let program: ShellProgram
    public let hostCommands: [any HostCommand.Type]
    /// The module entered with `use`, if any (always the module in a standalone program).
    public private(set) var currentModuleID: ModuleID?
    /// Set by a command that ends the shell (`exit`).
    public var exitRequested = false
    /// Whether a background sync is running.
    let backgroundSync = LockedValue(false)

    /// The shell's commands by name and alias. A command's configuration is built anew on every
    /// access, so this is computed once per process (the launcher also needs the names, for the
    /// registry's check, before the shell exists).
    public static func index(of commands: [any HostCommand.Type]) -> [String: any HostCommand.Type] {
        var byName: [String: any HostCommand.Type] = [:]
        for command in commands {
            let configuration = command.configuration
            for name in [configuration.commandName ?? command._commandName] + configuration.aliases {
                byName[name] = command
            }
        }
        return byName
    }

    public init(registry: ModuleRegistry, services: CoreServices, program: ShellProgram,
                hostCommands: [any HostCommand.Type], index: [String: any HostCommand.Type]? = nil) {
        precondition(registry.program == program.kind && services.program == program.kind,
                     "the registry, the services and the shell must agree on the kind of program")
        self.registry = registry
        self.services = services
        self.program = program
        self.hostCommands = hostCommands
        hostCommandsByName = index ?? Self.index(of: hostCommands)
        if case .standalone(let module) = program {
            currentModuleID = module.descriptor.id
        }
        // A module may ask for a sync now; the shell knows every module the sync must serve.
        let modules = registry.modules
        services.foregroundSync.value = { [weak services] in
            guard let services, (try? services.sessions.serverURL()) ?? nil != nil, (try? services.sessions.current()) ?? nil != nil,
                  let client = try? services.apiClient() else { return nil }
            return SyncEngine(services: services, modules: modules, client: client).run(force: false, waitsForOthers: true)
        }
    }

    public var console: Console { services.console }
    public var localizer: Localizer { CurrentLanguage.localizer }

    // MARK: - Location

    /// The prompt: `uniti>` at top level, `uniti/tyt>` inside a module, the program name
    /// in a standalone program.
    public var prompt: String {
        if !program.isStandalone, let id = currentModuleID {
            return "\(program.programName)/\(id)> "
        }
        return "\(program.programName)> "
    }

    /// A module's commands in this program.
    public func commands(of module: any UNITIModule) -> [any ShellCommand.Type] {
        registry.commands(of: module)
    }

    public var currentModule: (any UNITIModule)? {
        currentModuleID.flatMap { registry.module(id: $0) }
    }

    /// Enters a module (`use tyt`): it must exist and be enabled; its start hook runs.
    public func enter(moduleID: String) throws {
        guard let module = registry.module(id: moduleID) else {
            throw UNITIError(unknownModuleMessage(moduleID))
        }
        try requireEnabled(module)
        currentModuleID = module.descriptor.id
        try (module as? any ModuleEntering)?.didEnter(context(for: module))
    }

    /// What a program does when it opens the data directory, each a read when there is nothing
    /// to do: it applies records and sheets that a program without their module pulled
    /// (``ParkedRecords``), and brings back answers kept outside the data directory while it
    /// could not be written (``AnswerRescue``), saying so in one line.
    public func prepare() throws {
        if let reason = services.database.readOnlyBecause {
            // Said once to a person at the prompt; in a script the command that cannot save says why.
            if services.input.isInteractive {
                console.error(localizer(reason == .diskFull ? "core.storage.openedFull" : "core.storage.openedReadOnly",
                                        ["path": services.dataDirectory.path]))
            }
            return
        }
        do {
            try ParkedRecords.deliverPending(for: registry.modules, in: services.database)
        } catch where StorageFailure.kind(of: error) != nil {
            // Not now (the disk is full, the database busy): they stay parked for the next start.
        }
        // Still unable to write: the answers stay where they are, for the next start.
        if let restored = try? AnswerRescue(dataDirectory: services.dataDirectory).restore(into: services.database), !restored.isEmpty {
            console.error(localizer("questionnaire.restored", count: restored.count, ["ids": restored.joined(separator: ", ")]))
        }
    }

    /// Leaves the current module (`back`).
    public func leaveModule() {
        if !program.isStandalone { currentModuleID = nil }
    }

    // MARK: - Running lines

    /// Runs one command line and reports how it ended.
    @discardableResult
    public func execute(line: String) -> CommandOutcome {
        let words: [String]
        do {
            words = try Tokenizer.tokenize(line)
        } catch {
            console.error(localizer("host.error.syntax", ["reason": error.description]))
            return .failure
        }
        return execute(words: words)
    }

    @discardableResult
    public func execute(words: [String]) -> CommandOutcome {
        guard let first = words.first else { return .success }
        let changesBefore = databaseChanges
        // A command that wrote may have made, changed or ended a reminder rule (a study joined,
        // reminders switched on, a window moved): the rules are seen now, so a reminder from
        // before the change is never announced, also when only scripts ran in between.
        defer { if databaseChanges != changesBefore { try? reminderService().noteRules() } }
        do {
            switch try resolve(words) {
            case .host(let type, let arguments):
                try runHost(type, arguments: arguments)
            case .module(let module, let arguments):
                try runModule(module, arguments: arguments)
                // A module command may have queued something for the server (a saved sheet,
                // a record): send it in the background, never blocking the prompt.
                if !lastCommandFailed { syncInBackgroundIfQueued() }
            }
        } catch let error as UNITIError {
            console.error(localizer("host.error.prefix", ["message": error.message]))
            return .failure
        } catch let cancel as PromptCancelled {
            let key = cancel.reason == .interrupted ? "host.cancelled" : "host.endOfInput"
            console.error(localizer(cancel.keptAnswers ? key + ".kept" : key))
            return .failure
        } catch {
            // A storage failure (full disk, read-only folder, ...) in our words, else the error as it is.
            let message = StorageFailure.message(for: error, directory: services.dataDirectory.path) ?? "\(first): \(error)"
            console.error(localizer("host.error.prefix", ["message": message]))
            return .failure
        }
        return exitRequested || services.endOfProgramRequested.value ? .exit : (lastCommandFailed ? .failure : .success)
    }

    /// Rows this process changed in the database so far (SQLite's count, read without a query).
    private var databaseChanges: Int {
        services.database.writer.inDatabase { $0.totalChangesCount }
    }

    /// Set when a command reports failure through a parse or usage error it printed itself.
    private var lastCommandFailed = false

    enum Resolution {
        case host(any HostCommand.Type, [String])
        case module(any UNITIModule, [String])
    }

    func resolve(_ words: [String]) throws -> Resolution {
        let first = words[0]
        if let module = currentModule, commands(of: module).contains(where: { $0.commandName == first }) {
            return .module(module, words)
        }
        if let host = hostCommand(named: first) {
            return .host(host, Array(words.dropFirst()))
        }
        if !program.isStandalone, let module = registry.module(id: first) {
            return .module(module, Array(words.dropFirst()))
        }
        throw UNITIError(unknownCommandMessage(first))
    }

    public func hostCommand(named name: String) -> (any HostCommand.Type)? {
        hostCommandsByName[name]
    }

    /// See `index(of:)`.
    let hostCommandsByName: [String: any HostCommand.Type]

    private func runHost(_ type: any HostCommand.Type, arguments: [String]) throws {
        lastCommandFailed = false
        guard let parsed = parse(type, arguments: arguments, helpPath: [type.commandName]) else { return }
        guard let command = parsed as? any HostCommand else {
            console.line(helpText(of: type, askedWith: arguments, helpPath: [type.commandName]))
            return
        }
        try command.run(in: self)
    }

    private func runModule(_ module: any UNITIModule, arguments: [String]) throws {
        lastCommandFailed = false
        try requireEnabled(module)
        if arguments.first != AboutModuleCommand.commandName { try requireAccount(for: module) }
        guard let name = arguments.first else {
            printModuleHelp(module)
            return
        }
        guard let type = commands(of: module).first(where: { $0.commandName == name }) else {
            let known = commands(of: module).map { $0.commandName }
            var message = localizer("host.error.unknownModuleCommand", ["module": module.descriptor.id.rawValue, "command": name])
            if let guess = CommandSuggester.closest(to: name, among: known) {
                message += " " + localizer("host.didYouMean", ["command": modulePrefix(module) + guess])
            }
            throw UNITIError(message)
        }
        let helpPath = (modulePrefix(module).isEmpty ? [] : [module.descriptor.id.rawValue]) + [name]
        guard let parsed = parse(type, arguments: Array(arguments.dropFirst()), helpPath: helpPath) else { return }
        guard let command = parsed as? any ShellCommand else {
            console.line(helpText(of: type, askedWith: Array(arguments.dropFirst()), helpPath: helpPath))
            return
        }
        try command.run(in: context(for: module))
    }

    /// The help a parse that ran nothing asked for. argument-parser turns `--help` on a command
    /// with subcommands (`account --help`, `account deactivate --help`) into its own `help`
    /// subcommand, whose type is not ours: the help shown is that of the command the words
    /// name, never the help of `help`.
    private func helpText(of type: any ParsableCommand.Type, askedWith arguments: [String], helpPath: [String]) -> String {
        let leaf = type.subcommand(following: arguments.filter { $0 != "help" && !$0.hasPrefix("-") })
        return ParserText.help(type.helpMessage(for: leaf.type, columns: console.width), path: helpPath + leaf.path, localizer)
    }

    /// Parses arguments for a command type; prints help or one error line and returns nil when
    /// there is nothing to run. `helpPath` is how the person reached the command (`tyt notify`);
    /// the subcommands named in the arguments are added to it for the "see 'help ...'" hint.
    private func parse(_ type: any ParsableCommand.Type, arguments: [String], helpPath: [String]) -> (any ParsableCommand)? {
        do {
            return try type.parseAsRoot(arguments)
        } catch {
            if type.exitCode(for: error) == .success {
                let path = helpPath + type.subcommand(following: arguments).path
                console.line(ParserText.help(type.fullMessage(for: error, columns: console.width), path: path, localizer))
            } else {
                let message = ParserText.error(type.message(for: error)
                    .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }.joined(separator: " "), localizer)
                let path = helpPath + type.subcommand(following: arguments).path
                console.error(localizer("host.error.usage", ["message": message, "command": path.joined(separator: " ")]))
                lastCommandFailed = true
            }
            return nil
        }
    }

    // MARK: - Modules and context

    /// Whether someone is logged in, when the module's program is used with an account only
    /// (``StartScreenChoices/accountOnly``); true for every other module and program.
    func hasNeededAccount(_ module: any UNITIModule) -> Bool {
        guard (module as? any StartScreenOffering)?.startScreen(in: program.kind) == .accountOnly else { return true }
        return ((try? sessions.current()) ?? nil) != nil
    }

    /// Refuses a module's commands in one line while its program needs an account and nobody is
    /// logged in (the account commands themselves are the shell's and always run).
    func requireAccount(for module: any UNITIModule) throws {
        guard !hasNeededAccount(module) else { return }
        throw UNITIError(localizer("host.start.accountNeededFor", ["program": program.programName]))
    }

    /// The context a module's commands run with.
    public func context(for module: any UNITIModule) -> ModuleContext {
        ModuleContext(services: services, module: module.descriptor)
    }

    /// The context of the shell's own commands.
    public var hostContext: ModuleContext {
        ModuleContext(services: services, module: .shell)
    }

    public func isEnabled(_ module: any UNITIModule) throws -> Bool {
        try services.studies.enabledModuleIDs().contains(module.descriptor.id)
    }

    func requireEnabled(_ module: any UNITIModule) throws {
        guard try !isEnabled(module) else { return }
        let id = module.descriptor.id
        if let study = try services.studies.studyEnabling(id) {
            throw UNITIError(localizer("host.module.disabledBy", [
                "module": id.rawValue, "study": study.id, "title": study.title.text(in: CurrentLanguage.value.rawValue, fallback: study.fallbackLanguage),
            ]))
        }
        throw UNITIError(localizer("host.module.disabled", ["module": id.rawValue]))
    }

    /// `tyt ` in the integrated shell outside the module, "" where the module's commands are at hand.
    func modulePrefix(_ module: any UNITIModule) -> String {
        (program.isStandalone || currentModuleID == module.descriptor.id) ? "" : module.descriptor.id.rawValue + " "
    }

    // MARK: - Messages

    /// Every word that may start a command line here, for suggestions and completion.
    public var topLevelWords: [String] {
        var words = Array(hostCommandsByName.keys)
        if let module = currentModule {
            words += commands(of: module).map { $0.commandName }
        }
        if !program.isStandalone {
            words += registry.modules.map(\.descriptor.id.rawValue)
        }
        return Array(Set(words)).sorted()
    }

    func unknownCommandMessage(_ word: String) -> String {
        var candidates = topLevelWords
        if !program.isStandalone {
            for module in registry.modules where module.descriptor.id != currentModuleID {
                candidates += commands(of: module).map { "\(module.descriptor.id) \($0.commandName)" }
            }
        }
        var message = localizer("host.error.unknownCommand", ["command": word])
        if let guess = CommandSuggester.closest(to: word, among: topLevelWords) {
            message += " " + localizer("host.didYouMean", ["command": guess])
        } else if let module = registry.modules.first(where: { commands(of: $0).contains { $0.commandName == word } }),
                  !program.isStandalone {
            message += " " + localizer("host.didYouMean", ["command": "\(module.descriptor.id) \(word)"])
        } else {
            message += " " + localizer("host.tryHelp")
        }
        return message
    }

    func unknownModuleMessage(_ id: String) -> String {
        var message = localizer("host.error.unknownModule", ["module": id])
        if let guess = CommandSuggester.closest(to: id, among: registry.modules.map(\.descriptor.id.rawValue)) {
            message += " " + localizer("host.didYouMean", ["command": guess])
        }
        return message
    }

    /// The command list of one module, with each command's one-line summary.
    public func printModuleHelp(_ module: any UNITIModule) {
        console.line("\(module.descriptor.name) (\(module.descriptor.id)): \(module.descriptor.summary)")
        let prefix = modulePrefix(module)
        let rows = commands(of: module).map { (prefix + $0.commandName, $0.configuration.abstract) }
        printTable(rows)
    }

    /// Names and values (help lists, `status`, `profile`): the names at most 26 columns wide, so
    /// one long name overruns instead of pushing every value to the right; values are never cut
    /// (paths and addresses must stay whole, help must stay readable).
    public func printTable(_ rows: [(String, String)], indent: Int = 2) {
        console.table(TextTable(columns: [.init(maximumWidth: 26)], rows: rows.map { [$0.0, $0.1] }, indent: indent,
                                cutsToTerminalWidth: false))
    }
}

extension ParsableCommand {
    /// The subcommand that `words` name from this command, following names while they match,
    /// and the names followed.
    static func subcommand(following words: [String]) -> (type: any ParsableCommand.Type, path: [String]) {
        var leaf: any ParsableCommand.Type = self
        var path: [String] = []
        for word in words {
            guard let next = leaf.configuration.subcommands.first(where: { $0.commandName == word }) else { break }
            path.append(word)
            leaf = next
        }
        return (leaf, path)
    }
}
