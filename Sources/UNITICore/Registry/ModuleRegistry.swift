import UNITIProtocol

/// The set of modules a program offers, checked once at start-up.
///
/// The registry refuses two modules with one id, a module named like the shell, two commands
/// with one name inside a module, and a module command that would hide a command of the shell
/// itself, each with a message naming both parties, so a wrong configuration fails loudly before
/// anything runs. (Record kinds are checked where records are routed, ``RecordRouter``, which
/// the shared test harness builds for every module: the check asks each module for a
/// capability, and that question costs a scan of the program's type tables at every start.)
public struct ModuleRegistry: Sendable {
    public let modules: [any UNITIModule]
    /// The kind of program the modules run in.
    public let program: ProgramKind

    /// - Parameters:
    ///   - modules: the modules, in the order `modules` lists them.
    ///   - program: integrated (module commands under the module's id) or standalone (the
    ///     module's commands beside the shell's own).
    ///   - reservedNames: names the shell itself uses at the level where module commands appear
    ///     (host commands; in the integrated build they compete with module ids, standalone
    ///     with the module's own commands).
    public init(_ modules: [any UNITIModule], program: ProgramKind, reservedNames: Set<String>) throws {
        var ids: [String: String] = [:]  // plain strings: cheaper at start than ModuleID keys
        for module in modules {
            let id = module.descriptor.id
            if id == .shell {
                throw UNITIError("module \(module.descriptor.name) uses the id '\(id)', which belongs to the shell")
            }
            if let other = ids[id.rawValue] {
                throw UNITIError("modules \(other) and \(module.descriptor.name) both use the id '\(id)'")
            }
            if program == .integrated, reservedNames.contains(id.rawValue) {
                throw UNITIError("module \(module.descriptor.name) uses the id '\(id)', which is a command of the shell")
            }
            ids[id.rawValue] = module.descriptor.name

            var names = Set<String>()
            for command in module.commands(for: program) {
                let name = command.commandName
                if !names.insert(name).inserted {
                    throw UNITIError("module \(module.descriptor.name) declares the command '\(name)' twice")
                }
                if program == .standalone, reservedNames.contains(name) {
                    throw UNITIError("module \(module.descriptor.name) declares the command '\(name)', which is a command of the shell")
                }
            }
        }
        self.modules = modules
        self.program = program
    }

    public func module(id: ModuleID) -> (any UNITIModule)? {
        modules.first { $0.descriptor.id == id }
    }

    public func module(id: String) -> (any UNITIModule)? {
        ModuleID(rawValue: id).flatMap { module(id: $0) }
    }

    /// The module's commands in this program.
    public func commands(of module: any UNITIModule) -> [any ShellCommand.Type] {
        module.commands(for: program)
    }

    /// All migration sets, the core's first.
    public var migrationSets: [MigrationSet] {
        CoreMigrations.all + modules.map(\.migrationSet)
    }
}
