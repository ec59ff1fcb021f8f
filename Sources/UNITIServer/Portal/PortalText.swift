import Foundation
import UNITILocalization
import UNITIText

/// The portal's words: the `portal.*` keys of the shared string tables (Localization/Strings/
/// <language>/portal.json), and which language a visitor gets.
///
/// The language is the visitor's choice from the switch (a cookie), else the first supported
/// language of `Accept-Language`, else English. The languages are the ones accounts may have
/// (``AccountRules/languages``), so a registration from the portal mails in the page's language.
package enum PortalText {
    package static let languageCookie = "uniti_language"
    package static let languages: [String] = AccountRules.languages.sorted()

    /// The languages of a mail to staff, who have no language on record yet (a participant's
    /// mail is in their account's language): English first, then German, as before the trial's
    /// other languages came. A staff member's own language is issue 49's to add.
    package static let staffMailLanguages: [String] = ["en", "de"]

    /// The text of a full key (`portal.error.csrf`) with `{name}` placeholders filled; English
    /// when the language lacks it, the key itself when both do (so a gap shows, never crashes).
    package static func text(_ key: String, _ language: String, _ values: [String: String] = [:]) -> String {
        var text = StringTables.text(key, language: language) ?? StringTables.text(key, language: "en") ?? key
        for (name, value) in values {
            text = text.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return text
    }

    /// A number as a visitor reads it in their language (`28,8` in German); never for exports or
    /// form values, which keep the point.
    package static func number(_ value: Double, _ language: String, fractionDigits: Int? = nil) -> String {
        (Language(rawValue: language) ?? .english).number(value, fractionDigits: fractionDigits)
    }

    /// The character between a number's whole part and its fraction in the visitor's language,
    /// for the page's script, which shows a slider's value as it moves.
    package static func decimalSeparator(_ language: String) -> String {
        (Language(rawValue: language) ?? .english).decimalSeparator
    }

    /// A size in words a person can act on: whole megabytes from 1 MB on, else kilobytes ("64 kB").
    package static func size(_ bytes: Int, _ language: String) -> String {
        bytes >= 1 << 20 ? text("portal.size.megabytes", language, ["count": "\(bytes >> 20)"])
            : text("portal.size.kilobytes", language, ["count": "\(bytes >> 10)"])
    }

    /// What templates see as `t`: every `portal.` key without its prefix, dots turned into `_`
    /// (mustache reads a dot as a step into a nested value), e.g. `{{t.login_title}}`.
    package static func templateTable(_ language: String) -> [String: String] {
        tables[language] ?? tables["en"] ?? [:]
    }

    /// The staff console's `t`: the `console.` keys, as ``templateTable(_:)`` has the portal's.
    package static func consoleTable(_ language: String) -> [String: String] {
        consoleTables[language] ?? consoleTables["en"] ?? [:]
    }

    private static let tables = makeTables(prefix: "portal.")
    private static let consoleTables = makeTables(prefix: "console.")

    private static func makeTables(prefix: String) -> [String: [String: String]] {
        var tables: [String: [String: String]] = [:]
        for language in languages {
            var table: [String: String] = [:]
            for key in StringTables.table(for: "en").keys where key.hasPrefix(prefix) {
                let name = key.dropFirst(prefix.count).replacingOccurrences(of: ".", with: "_")
                table[name] = text(key, language)
            }
            tables[language] = table
        }
        return tables
    }

    /// The chosen language from the cookie, else from `Accept-Language` (by weight), else English.
    package static func language(cookie: String?, acceptLanguage: String?) -> String {
        if let cookie, languages.contains(cookie) { return cookie }
        guard let acceptLanguage else { return "en" }
        let ranges = acceptLanguage.split(separator: ",").compactMap { part -> (tag: String, weight: Double)? in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first?.lowercased(), !tag.isEmpty else { return nil }
            let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag, weight)
        }
        for range in ranges.enumerated().sorted(by: { ($0.element.weight, -$0.offset) > ($1.element.weight, -$1.offset) }) {
            let primary = String(range.element.tag.split(separator: "-").first ?? "")
            if range.element.weight > 0, languages.contains(primary) { return primary }
        }
        return "en"
    }
}
