/// The set of modules a program offers, checked once at start-up.
///
/// The registry refuses two modules with one id, two commands with one name inside a module,
/// and a module command that would hide a command of the shell itself, each with a message
/// naming both parties, so a wrong configuration fails loudly before anything runs.
public struct ModuleRegistry: Sendable {
    public let modules: [any UNITIModule]

    /// - Parameters:
    ///   - modules: the modules, in the order `modules` lists them.
    ///   - reservedNames: names the shell itself uses at the level where module commands appear
    ///     (host commands; in the integrated build they compete with module ids, standalone
    ///     with the module's own commands).
    ///   - commandsAtTopLevel: true for a standalone program, whose module commands sit beside
    ///     the shell's own commands.
    public init(_ modules: [any UNITIModule], reservedNames: Set<String>, commandsAtTopLevel: Bool) throws {
        var ids: [String: String] = [:]
        for module in modules {
            let id = module.descriptor.id
            guard Self.isValidID(id) else {
                throw UNITIError("module \(module.descriptor.name) has an invalid id '\(id)': use 2–16 lowercase letters or digits")
            }
            if let other = ids[id] {
                throw UNITIError("modules \(other) and \(module.descriptor.name) both use the id '\(id)'")
            }
            if !commandsAtTopLevel, reservedNames.contains(id) {
                throw UNITIError("module \(module.descriptor.name) uses the id '\(id)', which is a command of the shell")
            }
            ids[id] = module.descriptor.name

            var names: [String: String] = [:]
            for command in module.commands {
                let name = command.commandName
                if names[name] != nil {
                    throw UNITIError("module \(module.descriptor.name) declares the command '\(name)' twice")
                }
                if commandsAtTopLevel, reservedNames.contains(name) {
                    throw UNITIError("module \(module.descriptor.name) declares the command '\(name)', which is a command of the shell")
                }
                names[name] = name
            }
        }
        self.modules = modules
    }

    /// 2–16 characters: a lowercase ASCII letter, then lowercase letters or digits. (Checked by
    /// hand: a regular expression here would compile ICU's regex engine at every start.)
    static func isValidID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (2...16).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    public func module(id: String) -> (any UNITIModule)? {
        modules.first { $0.descriptor.id == id }
    }

    /// All migration sets, the core's first.
    public var migrationSets: [MigrationSet] {
        CoreMigrations.all + modules.map(\.migrationSet)
    }
}
