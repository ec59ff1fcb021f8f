import Foundation

/// Shows an item only when an earlier item's answer has one of the given values
/// (`{"label": "smoker", "equals": 0}` or `{"label": "mood", "in": [1, 2]}`).
///
/// A multiple-choice answer matches when any selected value is among them. An item whose
/// condition is not met is hidden: it is not asked, not required, and an answer to it is
/// refused. Maps to FHIR `enableWhen` with operator `=` and `enableBehavior = any`.
public struct ItemCondition: Codable, Hashable, Sendable {
    /// The label of an earlier item.
    public var label: String
    /// The values that show the item (at least one).
    public var values: [AnswerValue]

    public init(label: String, equals value: AnswerValue) {
        self.label = label
        self.values = [value]
    }

    public init(label: String, in values: [AnswerValue]) {
        self.label = label
        self.values = values
    }

    enum CodingKeys: String, CodingKey { case label, equals, `in` }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        label = try c.decode(String.self, forKey: .label)
        if let single = try c.decodeIfPresent(AnswerValue.self, forKey: .equals) {
            values = [single]
        } else if let many = try c.decodeIfPresent([AnswerValue].self, forKey: .in) {
            values = many
        } else {
            throw DecodingError.keyNotFound(CodingKeys.equals, DecodingError.Context(
                codingPath: c.codingPath, debugDescription: "a condition needs \"equals\" or \"in\""))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(label, forKey: .label)
        if values.count == 1 {
            try c.encode(values[0], forKey: .equals)
        } else {
            try c.encode(values, forKey: .in)
        }
    }

    /// Whether `answer` (the referenced item's answer, nil when unanswered) shows the item.
    public func isMet(by answer: AnswerValue?) -> Bool {
        guard let answer else { return false }
        switch answer {
        case .choices(let selected):
            return values.contains { value in
                guard case .number(let number) = value else { return false }
                return selected.contains { Double($0) == number }
            }
        default:
            return values.contains(answer)
        }
    }
}
