import Foundation

/// What a study tells the person at once after they saved a questionnaire, in its languages, in
/// the shell and in the portal alike: a message after every sheet ("these answers are not read
/// by a clinician; in a crisis call …") and help texts for scores at or above a threshold (a
/// distress grade "very severe").
public struct AfterSaving: Codable, Hashable, Sendable {
    public var message: LocalizedText?
    public var help: [ScoreHelp]

    public init(message: LocalizedText? = nil, help: [ScoreHelp] = []) {
        self.message = message
        self.help = help
    }

    enum CodingKeys: String, CodingKey { case message, help }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        message = try c.decodeIfPresent(LocalizedText.self, forKey: .message)
        help = try c.decodeIfPresent([ScoreHelp].self, forKey: .help) ?? []
    }
}

/// A help text shown when the score `score` is at least `atLeast`.
public struct ScoreHelp: Codable, Hashable, Sendable {
    public var score: String
    public var atLeast: Double
    public var text: LocalizedText

    public init(score: String, atLeast: Double, text: LocalizedText) {
        self.score = score
        self.atLeast = atLeast
        self.text = text
    }
}

extension QuestionnaireDefinition {
    /// The texts to show after saving a sheet with these scores: the message, then the help of
    /// every score that reached its threshold, in the definition's order.
    public func textsAfterSaving(scores: [ScoreResult]) -> [LocalizedText] {
        guard let afterSaving else { return [] }
        let values = Dictionary(scores.compactMap { score in score.value.map { (score.id, $0) } }, uniquingKeysWith: { first, _ in first })
        return (afterSaving.message.map { [$0] } ?? [])
            + afterSaving.help.filter { help in values[help.score].map { $0 >= help.atLeast } ?? false }.map(\.text)
    }
}
