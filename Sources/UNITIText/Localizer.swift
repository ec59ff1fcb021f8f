import Foundation
import UNITILocalization

/// Looks up user-facing text in the string tables (`Localization/Strings/*.json`).
///
/// Placeholders are named: `"Module {module} is not enabled"` with `["module": "tyt"]`.
/// A key missing in German falls back to English; a key missing everywhere shows the key
/// itself, so a gap is visible instead of silent.
public struct Localizer: Sendable {
    public let language: Language

    public init(language: Language) {
        self.language = language
    }

    public func callAsFunction(_ key: String, _ arguments: [String: String] = [:]) -> String {
        let template = StringTables.text(key, language: language.rawValue)
            ?? StringTables.text(key, language: Language.english.rawValue) ?? key
        guard !arguments.isEmpty else { return template }
        return Self.fill(template, with: arguments)
    }

    /// The text of a counted thing in the form `count` takes in this language (`key.one`,
    /// `key.other`, see ``PluralForm``), with `{count}` filled in: "1 audiogram", "2 audiograms",
    /// "Die letzte Antwort:", "Die letzten 3:". A sentence with several counts is made of
    /// counted parts, each looked up this way and passed in as a placeholder's value.
    public func callAsFunction(_ key: String, count: Int, _ arguments: [String: String] = [:]) -> String {
        var arguments = arguments
        if arguments["count"] == nil { arguments["count"] = String(count) }
        return self(key + "." + language.pluralForm(count).rawValue, arguments)
    }

    /// Puts each `{name}` of the template's placeholders in `arguments` in their place, in one
    /// pass; braces around anything else stay as they are, and a value is never searched again
    /// for placeholders.
    package static func fill(_ template: String, with arguments: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"),
                  let value = arguments[String(rest[rest.index(after: open)..<close])] else {
                result.append("{")
                rest = rest[rest.index(after: open)...]
                continue
            }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Whether `key` exists in the English table (the reference every other table mirrors).
    public func hasKey(_ key: String) -> Bool {
        StringTables.text(key, language: Language.english.rawValue) != nil
    }
}
