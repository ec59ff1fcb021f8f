/// Text given in several languages in one place, as questionnaires and studies carry it:
/// `{"en": "How loud is it?", "de": "Wie laut ist es?"}`. A missing language falls back to the
/// study's first language (when the study declares its languages), then English.
public struct LocalizedText: Codable, Hashable, Sendable, ExpressibleByStringLiteral {
    public var values: [String: String]

    public init(_ values: [String: String]) {
        self.values = values
    }

    public init(stringLiteral value: String) {
        self.values = ["en": value]
    }

    /// The text in `language`, else English, else any language present, else "".
    public func text(in language: String) -> String {
        text(in: language, fallback: nil)
    }

    /// The text in `language`, else in `fallback` (a study's first language, ``StudyLanguages``),
    /// else English, else any language present, else "".
    public func text(in language: String, fallback: String?) -> String {
        self.language(for: language, fallback: fallback).flatMap { values[$0] } ?? ""
    }

    /// The language a reader of `language` reads this text in: theirs, else `fallback`, else
    /// English, else the first present by code; nil for an empty text.
    public func language(for language: String, fallback: String?) -> String? {
        [language, fallback, "en"].compactMap { $0 }.first { values[$0] != nil } ?? values.keys.min()
    }

    /// A language code as a key of the object form.
    private struct LanguageKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// The object form, as every stored definition has it, is read first and key by key: a
    /// failed attempt costs an error value, and trying the plain-string form first made every
    /// text of a stored questionnaire pay for one (most of the time of listing a thousand).
    public init(from decoder: Decoder) throws {
        if let object = try? decoder.container(keyedBy: LanguageKey.self) {
            var values: [String: String] = [:]
            for key in object.allKeys { values[key.stringValue] = try object.decode(String.self, forKey: key) }
            self.values = values
        } else {
            values = ["en": try decoder.singleValueContainer().decode(String.self)]
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}
