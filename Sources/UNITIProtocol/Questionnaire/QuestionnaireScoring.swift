import Foundation

/// Scoring rules as data, so a study can add a clinical questionnaire without code.
///
/// Each score sums the values of its items; reverse-keyed items count as `min + max - value`
/// with the item's own bounds (so 0 on a 0–2 item counts as 2). Several scores make subscales
/// (each with its own item list). Grade bands map a total to a named grade; bands are
/// inclusive, ordered, and must join without gap or overlap and cover every total the items
/// can give (Tinnitus Navigator thesis: a 0–24 total in four severity grades).
public struct QuestionnaireScoring: Codable, Hashable, Sendable {
    public var scores: [ScoreRule]

    public init(scores: [ScoreRule]) {
        self.scores = scores
    }
}

/// One score: a sum over some items, with optional reverse keying and grade bands.
public struct ScoreRule: Codable, Hashable, Sendable {
    /// Stable id of the score (`total`, `emotional`).
    public var id: String
    public var title: LocalizedText?
    /// Labels of the items summed.
    public var items: [String]
    /// Labels (a subset of `items`) whose values are reversed before summing.
    public var reversed: [String]
    /// Grades by range of the sum; empty when the score has no grades.
    public var bands: [GradeBand]

    public init(id: String, title: LocalizedText? = nil, items: [String], reversed: [String] = [], bands: [GradeBand] = []) {
        self.id = id
        self.title = title
        self.items = items
        self.reversed = reversed
        self.bands = bands
    }

    enum CodingKeys: String, CodingKey { case id, title, items, reversed, bands }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decodeIfPresent(LocalizedText.self, forKey: .title)
        items = try c.decode([String].self, forKey: .items)
        reversed = try c.decodeIfPresent([String].self, forKey: .reversed) ?? []
        bands = try c.decodeIfPresent([GradeBand].self, forKey: .bands) ?? []
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encode(items, forKey: .items)
        if !reversed.isEmpty { try c.encode(reversed, forKey: .reversed) }
        if !bands.isEmpty { try c.encode(bands, forKey: .bands) }
    }
}

/// A range of a score (both ends inclusive) and the grade it means.
public struct GradeBand: Codable, Hashable, Sendable {
    public var min: Double
    public var max: Double
    /// Stable grade id (`mild`), sent and stored.
    public var grade: String
    /// What the person reads.
    public var title: LocalizedText?

    public init(min: Double, max: Double, grade: String, title: LocalizedText? = nil) {
        self.min = min
        self.max = max
        self.grade = grade
        self.title = title
    }
}

/// The result of one score for one sheet.
public struct ScoreResult: Codable, Hashable, Sendable {
    public var id: String
    /// The sum; nil when an item of the score is unanswered.
    public var value: Double?
    /// The grade of the band containing the sum, if any.
    public var grade: String?
    /// Labels of the score's items without an answer.
    public var missing: [String]

    public init(id: String, value: Double?, grade: String?, missing: [String]) {
        self.id = id
        self.value = value
        self.grade = grade
        self.missing = missing
    }
}

/// Evaluates a definition's scoring rules on answers. Pure, so the client shows scores right
/// after answering and the server can compute the same numbers for export.
public enum QuestionnaireScorer {
    /// One result per score rule, in the order of the definition. A score with an unanswered
    /// item has no value (a sum over fewer items would understate it).
    public static func scores(for definition: QuestionnaireDefinition,
                              answers: [String: AnswerValue]) -> [ScoreResult] {
        guard let scoring = definition.scoring else { return [] }
        return scoring.scores.map { rule in
            var sum = 0.0
            var missing: [String] = []
            for label in rule.items {
                guard let item = definition.item(labeled: label),
                      let value = answers[label].flatMap({ numericValue(of: $0, for: item.element) })
                else {
                    missing.append(label)
                    continue
                }
                if rule.reversed.contains(label), let bounds = item.element.numericBounds {
                    sum += bounds.min + bounds.max - value
                } else {
                    sum += value
                }
            }
            guard missing.isEmpty else { return ScoreResult(id: rule.id, value: nil, grade: nil, missing: missing) }
            let grade = rule.bands.first { sum >= $0.min - 1e-9 && sum <= $0.max + 1e-9 }?.grade
            return ScoreResult(id: rule.id, value: sum, grade: grade, missing: [])
        }
    }

    /// The number an answer contributes: its value, or the sum of selected values.
    public static func numericValue(of answer: AnswerValue, for element: QuestionnaireElement) -> Double? {
        switch (answer, element) {
        case (.number(let value), _): return value
        case (.choices(let list), .multipleChoice): return Double(list.reduce(0, +))
        default: return nil
        }
    }
}
