import Foundation
import UNITICore

/// swift-argument-parser's own words in the person's language: the section titles of a help
/// page (`OVERVIEW`, `USAGE`, `ARGUMENTS`, `OPTIONS`, `SUBCOMMANDS`), its `--help` line, the
/// `(values: …)` and `(default: …)` notes, its hint for subcommands (said the shell's way,
/// `help study SUBCOMMAND`), and its parse errors. The parser writes English and has no hook for
/// other languages, so its fixed phrases are matched here, each rule a pattern and a string-table
/// template whose `{1}`, `{2}` … are the pattern's groups; text of our own (abstracts, argument
/// help, values) passes through untouched. Written against argument-parser 1.8: a phrase it
/// changes stays English until a rule follows it, which `ParserTextTests` notices.
enum ParserText {
    private struct Rule {
        let pattern: NSRegularExpression
        let key: String

        init(_ pattern: String, _ key: String) {
            self.pattern = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
            self.key = key
        }
    }

    /// Rules for a help page, applied line by line.
    private static let helpRules = [
        Rule(#"^OVERVIEW: "#, "host.parser.overview"),
        Rule(#"^USAGE: "#, "host.parser.usage"),
        Rule(#"^ARGUMENTS:$"#, "host.parser.arguments"),
        Rule(#"^OPTIONS:$"#, "host.parser.options"),
        Rule(#"^SUBCOMMANDS:$"#, "host.parser.subcommands"),
        Rule(#"Show help information\."#, "host.parser.helpFlag"),
        Rule(#"\(values: "#, "host.parser.values"),
        Rule(#"\(default: "#, "host.parser.default"),
        Rule(#"; default: "#, "host.parser.andDefault"),
        Rule(#"^(\s*)See '(.+?)(?: help)? <subcommand>' for detailed help\.$"#, "host.parser.seeSubcommand"),
        Rule(#"<subcommand>"#, "host.parser.subcommandPlaceholder"),
    ]

    /// Rules for the one-line message of a parse error, tried in order; the first that matches
    /// the whole message words it.
    private static let errorRules = [
        Rule(#"^Missing expected argument '(.+)'$"#, "host.parser.error.missingArgument"),
        Rule(#"^Missing one of: (.+)$"#, "host.parser.error.missingOneOf"),
        Rule(#"^Missing value for '(.+)'$"#, "host.parser.error.missingValue"),
        Rule(#"^Missing required subcommand\.$"#, "host.parser.error.missingSubcommand"),
        Rule(#"^Unknown option '(.+)'\. Did you mean '(.+)'\?$"#, "host.parser.error.unknownOptionGuess"),
        Rule(#"^Unknown option '(.+)'$"#, "host.parser.error.unknownOption"),
        Rule(#"^Unexpected argument '(.+)'$"#, "host.parser.error.unexpectedArgument"),
        Rule(#"^(\d+) unexpected arguments: (.+)$"#, "host.parser.error.unexpectedArguments"),
        Rule(#"^The value '(.*)' is invalid for '(.+?)'\. Please provide one of (.+)\.$"#, "host.parser.error.invalidValueOneOf"),
        Rule(#"^The value '(.*)' is invalid for '(.+?)'$"#, "host.parser.error.invalidValue"),
        Rule(#"^The option '(.+)' does not take any value, but '(.*)' was specified\.$"#, "host.parser.error.noValue"),
    ]

    /// A help page in `localizer`'s language. `path` is how the person names the command in
    /// this shell (`tn audiogram`), for the hint that shows a subcommand's help.
    static func help(_ text: String, path: [String], _ localizer: Localizer) -> String {
        var result = text
        for rule in helpRules {
            result = replace(rule, in: result, localizer, path: path)
        }
        return result
    }

    /// A parse error's message (one line) in `localizer`'s language; a message no rule knows
    /// stays as the parser wrote it.
    static func error(_ message: String, _ localizer: Localizer) -> String {
        let range = NSRange(message.startIndex..., in: message)
        for rule in errorRules {
            guard let match = rule.pattern.firstMatch(in: message, range: range), match.range == range else { continue }
            var arguments: [String: String] = [:]
            for group in 1..<match.numberOfRanges {
                guard let groupRange = Range(match.range(at: group), in: message) else { continue }
                arguments["\(group)"] = String(message[groupRange])
            }
            // "one of 'left' and 'right'": the list's last link in the language.
            if let list = arguments["3"], rule.key == "host.parser.error.invalidValueOneOf" {
                arguments["3"] = list.replacingOccurrences(of: "' and '", with: "' \(localizer("host.parser.and")) '")
            }
            return localizer(rule.key, arguments)
        }
        return message
    }

    private static func replace(_ rule: Rule, in text: String, _ localizer: Localizer, path: [String]) -> String {
        let matches = rule.pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        guard !matches.isEmpty else { return text }
        var result = text
        for match in matches.reversed() {
            guard let range = Range(match.range, in: result) else { continue }
            var arguments: [String: String] = [:]
            for group in 1..<max(match.numberOfRanges, 1) {
                guard let groupRange = Range(match.range(at: group), in: result) else { continue }
                arguments["\(group)"] = String(result[groupRange])
            }
            if rule.key == "host.parser.seeSubcommand", !path.isEmpty { arguments["2"] = path.joined(separator: " ") }
            result.replaceSubrange(range, with: localizer(rule.key, arguments))
        }
        return result
    }
}
