/// Text given in several languages in one place, as questionnaires and studies carry it:
/// `{"en": "How loud is it?", "de": "Wie laut ist es?"}`. English is the fallback.
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
        values[language] ?? values["en"] ?? values.sorted { $0.key < $1.key }.first?.value ?? ""
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
