import ArgumentParser
import UNITICore

extension Shell {
    /// What may come next after `words` (the finished words before the cursor), with `partial`
    /// the word being typed: command names, subcommand names, module ids, the values an argument
    /// takes where they are known (from its declaration or from a command that offers them at
    /// run time, ``ArgumentValuesOffering``), else the long options of the command reached.
    public func completions(after words: [String], partial: String = "") -> [String] {
        guard let first = words.first else { return topLevelWords }
        if first == "help" {
            return completions(after: Array(words.dropFirst()), partial: partial)
        }
        if first == "use", words.count == 1, !program.isStandalone {
            return registry.modules.map(\.descriptor.id.rawValue)
        }
        if let module = currentModule, let type = commands(of: module).first(where: { $0.commandName == first }) {
            return completions(in: type, after: Array(words.dropFirst()), partial: partial, context: context(for: module))
        }
        if let type = hostCommand(named: first) {
            return completions(in: type, after: Array(words.dropFirst()), partial: partial, context: hostContext)
        }
        if !program.isStandalone, let module = registry.module(id: first) {
            guard words.count > 1 else { return commands(of: module).map { $0.commandName }.sorted() }
            guard let type = commands(of: module).first(where: { $0.commandName == words[1] }) else { return [] }
            return completions(in: type, after: Array(words.dropFirst(2)), partial: partial, context: context(for: module))
        }
        return []
    }

    /// Follows subcommand names from `type`; offers the next subcommands, else the values of
    /// the argument the next word fills, else the options.
    func completions(in type: any ParsableCommand.Type, after words: [String], partial: String,
                     context: ModuleContext) -> [String] {
        let (leaf, path) = type.subcommand(following: words)
        let subcommands = leaf.subcommandNames
        if !subcommands.isEmpty { return subcommands.sorted() }
        let arguments = CommandArguments(of: leaf)
        guard !partial.hasPrefix("-") else { return arguments.longOptions }
        guard let slot = arguments.slot(after: Array(words.dropFirst(path.count))) else { return arguments.longOptions }
        let offered = (leaf as? any ArgumentValuesOffering.Type).flatMap { try? $0.values(for: slot.slotName, in: context) }
        if let values = offered ?? slot.declaredValues { return values }
        // An option's value nobody can list (a file, a number): nothing to offer.
        return slot.kind == "option" ? [] : arguments.longOptions
    }
}
