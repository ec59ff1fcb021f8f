import ArgumentParser
import UNITICore

extension Shell {
    /// What may come next after `words` (the finished words before the cursor): command names,
    /// subcommand names, module ids, and the long options of the command reached.
    public func completions(after words: [String]) -> [String] {
        guard let first = words.first else { return topLevelWords }
        if first == "help" {
            return completions(after: Array(words.dropFirst()))
        }
        if first == "use", words.count == 1, !program.isStandalone {
            return registry.modules.map(\.descriptor.id.rawValue)
        }
        if let module = currentModule, let type = commands(of: module).first(where: { $0.commandName == first }) {
            return Self.completions(in: type, after: Array(words.dropFirst()))
        }
        if let type = hostCommand(named: first) {
            return Self.completions(in: type, after: Array(words.dropFirst()))
        }
        if !program.isStandalone, let module = registry.module(id: first) {
            guard words.count > 1 else { return commands(of: module).map { $0.commandName }.sorted() }
            guard let type = commands(of: module).first(where: { $0.commandName == words[1] }) else { return [] }
            return Self.completions(in: type, after: Array(words.dropFirst(2)))
        }
        return []
    }

    /// Follows subcommand names from `type`; offers the next subcommands, else the options.
    static func completions(in type: any ParsableCommand.Type, after words: [String]) -> [String] {
        var leaf = type
        for word in words {
            guard let next = leaf.configuration.subcommands.first(where: { $0.commandName == word }) else { break }
            leaf = next
        }
        let subcommands = leaf.subcommandNames
        if !subcommands.isEmpty { return subcommands.sorted() }
        return longOptions(of: leaf)
    }

    /// The `--long` option names of a command, read from its generated help (without `--help` itself).
    static func longOptions(of type: any ParsableCommand.Type) -> [String] {
        let usage = type.helpMessage(columns: 400)
        var names: Set<String> = []
        var scanner = Substring(usage)
        while let range = scanner.range(of: "--") {
            let rest = scanner[range.lowerBound...]
            let name = rest.prefix { !$0.isWhitespace && $0 != "]" && $0 != "<" && $0 != "=" && $0 != ")" && $0 != "|" }
            if name.count > 2, name != "--help" { names.insert(String(name)) }
            scanner = rest.dropFirst(2)
        }
        return names.sorted()
    }
}
