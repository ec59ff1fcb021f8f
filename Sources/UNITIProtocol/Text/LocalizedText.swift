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

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let plain = try? container.decode(String.self) {
            values = ["en": plain]
        } else {
            values = try container.decode([String: String].self)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}
