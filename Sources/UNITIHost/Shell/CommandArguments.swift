import ArgumentParser
import Foundation

/// What a command takes, as swift-argument-parser itself describes it: its positional arguments
/// in order, its options and flags with their names, and the values each one is known to take
/// (a `CaseIterable` type's values, or a `completion: .list(...)`).
///
/// Read from `_dumpHelp()`, the JSON behind the parser's `--experimental-dump-help` (its public
/// description of a command; the parser's own argument set is internal), decoded into only the
/// fields completion needs. Asked once per Tab, so nothing is kept.
struct CommandArguments: Decodable {
    struct Name: Decodable {
        /// `long`, `short` or `longWithSingleDash`.
        let kind: String
        let name: String

        var spelled: String { kind == "short" ? "-" + name : (kind == "long" ? "--" : "-") + name }
    }

    struct Argument: Decodable {
        /// `positional`, `option` or `flag`.
        let kind: String
        let shouldDisplay: Bool
        let isRepeating: Bool
        let names: [Name]?
        let valueName: String?
        let allValues: [String]?
        let completionKind: Completion?

        struct Completion: Decodable {
            struct List: Decodable { let values: [String] }
            let list: List?
        }

        /// The values declared with the argument, nil when the declaration names none: a
        /// `completion: .list(...)` first (it says what to offer), else every value its type takes.
        var declaredValues: [String]? { completionKind?.list?.values ?? allValues }

        /// How a command offering values at run time names it (``ArgumentValuesOffering``).
        var slotName: String {
            names?.first { $0.kind == "long" }?.name ?? valueName ?? ""
        }
    }

    let arguments: [Argument]

    init(of type: any ParsableCommand.Type) {
        struct Tool: Decodable {
            struct Command: Decodable { let arguments: [Argument]? }
            let command: Command
        }
        let tool = try? JSONDecoder().decode(Tool.self, from: Data(type._dumpHelp().utf8))
        arguments = (tool?.command.arguments ?? []).filter { $0.shouldDisplay }
    }

    var positionals: [Argument] { arguments.filter { $0.kind == "positional" } }

    /// The `--long` names of the options and flags, without `--help`.
    var longOptions: [String] {
        arguments.filter { $0.kind != "positional" }
            .compactMap { $0.names?.first { $0.kind == "long" }?.spelled }
            .filter { $0 != "--help" }.sorted()
    }

    /// What the next word fills after `words` (the words typed after the command's name): the
    /// value of an option given just before, else the next positional argument; nil when
    /// neither (every positional argument is given).
    func slot(after words: [String]) -> Argument? {
        var positional = 0
        var pending: Argument?
        for word in words {
            if pending != nil {
                pending = nil
                continue
            }
            if word.hasPrefix("-"), word.count > 1 {
                guard !word.contains("=") else { continue }
                pending = arguments.first { $0.kind == "option" && ($0.names ?? []).contains { $0.spelled == word } }
                continue
            }
            positional += 1
        }
        if let pending { return pending }
        let all = positionals
        if positional < all.count { return all[positional] }
        return all.last.flatMap { $0.isRepeating ? $0 : nil }
    }
}
