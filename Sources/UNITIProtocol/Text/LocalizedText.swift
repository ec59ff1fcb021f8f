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
        values[language] ?? fallback.flatMap { values[$0] } ?? values["en"] ?? values.sorted { $0.key < $1.key }.first?.value ?? ""
    }

    /// The language a reader of `language` reads this text in (the chain of ``text(in:fallback:)``);
    /// nil for an empty text.
    public func language(for language: String, fallback: String?) -> String? {
        if values[language] != nil { return language }
        if let fallback, values[fallback] != nil { return fallback }
        if values["en"] != nil { return "en" }
        return values.keys.sorted().first
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
