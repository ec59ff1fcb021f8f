import Foundation
import UNITIProtocol

/// A study's eligibility screening (issue 48, "Eligibility screening"): the questionnaire a
/// person answers before joining completes and the rules their answers must meet. Written by a
/// coordinator as JSON (`uniti-server screening set --study S --file F`):
///
///     {"questionnaire": "uniti-screening",
///      "rules": [{"id": "age", "item": "age", "min": 18, "max": 80},
///                {"id": "distress", "score": "thi_total", "min": 18},
///                {"id": "no-pulsatile", "item": "pulsatile", "in": [1]}],
///      "ineligibleMessage": {"en": "…", "de": "…"},
///      "keepAnswersQuestion": {"en": "…", "de": "…"}}
///
/// A rule reads one item's number (a slider, a number, a choice's value) or one score of the
/// questionnaire's scoring, and holds when the value lies within `min`…`max` (both included,
/// either may be left out) and, with `in`, is one of those values. A rule over a question the
/// answers hide (`showIf`) does not apply. Every question shown must be answered: a rule never
/// decides on a missing answer. Someone who meets every rule is eligible; anyone else is told the
/// study's `ineligibleMessage` and is not a member. The screening log (``ScreeningEntry``) keeps
/// an ineligible person's answers only when they said yes to `keepAnswersQuestion`.
struct StudyScreening: Codable, Sendable, Equatable {
    struct Rule: Codable, Sendable, Equatable {
        var id: String
        var item: String?
        var score: String?
        var min: Double?
        var max: Double?
        /// The values allowed (a yes/no exclusion item, yes being 0 and no 1: `[1]`).
        var `in`: [Double]?
        /// What the rule means, for the team (the console and `screening show`); the id otherwise.
        var text: LocalizedText?

        /// The value read: the item's label or `score:` and the score's id.
        var reads: String { item ?? "score \(score ?? "")" }

        func holds(_ value: Double) -> Bool {
            if let min, value < min - 1e-9 { return false }
            if let max, value > max + 1e-9 { return false }
            if let allowed = self.in, !allowed.contains(where: { abs($0 - value) < 1e-9 }) { return false }
            return true
        }

        /// The rule in a few words: `age from 18 to 80`, `score thi_total at least 18`, `pulsatile one of 1`.
        var condition: String {
            var parts: [String] = []
            switch (min, max) {
            case let (min?, max?): parts.append("from \(Self.number(min)) to \(Self.number(max))")
            case let (min?, nil): parts.append("at least \(Self.number(min))")
            case let (nil, max?): parts.append("at most \(Self.number(max))")
            case (nil, nil): break
            }
            if let allowed = self.in { parts.append("one of \(allowed.map(Self.number).joined(separator: ", "))") }
            return "\(reads) \(parts.joined(separator: " and "))"
        }

        static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }

    var questionnaire: String
    var rules: [Rule]
    /// What an ineligible person is told, in the study's languages.
    var ineligibleMessage: LocalizedText
    /// Asked before the answers are sent: may the team keep them if the person is not eligible?
    /// Without it an ineligible person's answers are never kept.
    var keepAnswersQuestion: LocalizedText?

    /// What is wrong with the screening for `definition` (the questionnaire's newest version), a
    /// line each (empty: it can be used).
    func problems(definition: QuestionnaireDefinition?) -> [String] {
        var problems: [String] = []
        guard let definition else { return ["the study has no questionnaire \(questionnaire)"] }
        if rules.isEmpty { problems.append("a screening needs at least one rule") }
        let identifier = /[a-z0-9][a-z0-9_-]{0,31}/
        let scores = Set(definition.scoring?.scores.map(\.id) ?? [])
        for rule in rules {
            if (try? identifier.wholeMatch(in: rule.id)) == nil {
                problems.append("rule id \"\(rule.id.prefix(40))\": lower-case letters, digits, - and _, up to 32")
            }
            switch (rule.item, rule.score) {
            case (let label?, nil):
                if let item = definition.item(labeled: label) {
                    if !item.element.isQuestion || Self.isText(item.element) {
                        problems.append("rule \(rule.id): item \(label) gives no number")
                    }
                } else {
                    problems.append("rule \(rule.id): \(questionnaire) has no item \(label)")
                }
            case (nil, let score?):
                if !scores.contains(score) { problems.append("rule \(rule.id): \(questionnaire) has no score \(score)") }
            default:
                problems.append("rule \(rule.id) reads one item or one score")
            }
            if rule.min == nil, rule.max == nil, rule.in == nil { problems.append("rule \(rule.id) needs min, max or in") }
            if let min = rule.min, let max = rule.max, min > max { problems.append("rule \(rule.id): min is above max") }
            if rule.in?.isEmpty == true { problems.append("rule \(rule.id): in lists no value") }
        }
        if Set(rules.map(\.id)).count != rules.count { problems.append("two rules have the same id") }
        if ineligibleMessage.text(in: "en").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append("ineligibleMessage is empty")
        }
        return problems
    }

    private static func isText(_ element: QuestionnaireElement) -> Bool {
        switch element {
        case .freeText, .date: return true
        default: return false
        }
    }

    /// What the screening made of a sheet.
    enum Outcome: Equatable {
        case eligible
        /// The ids of the rules not met, in the screening's order.
        case ineligible([String])
    }

    /// Checks `sheet` against `definition` (every shown question answered, each answer valid)
    /// and applies the rules; throws 422 naming what is wrong, so nothing is decided on a sheet
    /// that is not whole.
    func outcome(of sheet: AnswerSheet, definition: QuestionnaireDefinition) throws -> Outcome {
        guard sheet.questionnaireID == definition.id else {
            throw APIError.invalid("screening_invalid", "The screening answers \(sheet.questionnaireID.prefix(64)), not \(definition.id).")
        }
        // The version answered may be older than the newest one when it changed meanwhile.
        guard sheet.questionnaireVersion == definition.version else {
            throw APIError(.conflict, "screening_changed",
                           "The screening questionnaire \(definition.id) changed (now version \(definition.version)); answer it again.")
        }
        let asked = definition.everyQuestionRequired()
        var whole = sheet
        whole.isPartial = false
        let problems = AnswerSheetValidator.validate(whole, against: asked)
        if !problems.isEmpty {
            let details = problems.prefix(5).map { problem in problem.label.map { "item '\($0)' \(problem.message)" } ?? problem.description }
            throw APIError.invalid("screening_invalid", "The screening answers are not whole: \(details.joined(separator: "; ")).")
        }
        let values = sheet.values
        let visible = definition.visibleLabels(given: values)
        let scores = Dictionary(QuestionnaireScorer.scores(for: definition, answers: values).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var failed: [String] = []
        for rule in rules {
            let value: Double?
            if let label = rule.item {
                guard visible.contains(label), let item = definition.item(labeled: label) else { continue }
                value = values[label].flatMap { QuestionnaireScorer.numericValue(of: $0, for: item.element) }
            } else if let score = rule.score {
                guard let result = scores[score] else { continue }
                // A score over hidden items does not apply, as a hidden item's rule does not.
                if result.value == nil, result.missing.allSatisfy({ !visible.contains($0) }) { continue }
                value = result.value
            } else {
                continue
            }
            guard let value else {
                throw APIError.invalid("screening_invalid", "The screening answers give no number for \(rule.reads).")
            }
            if !rule.holds(value) { failed.append(rule.id) }
        }
        return failed.isEmpty ? .eligible : .ineligible(failed)
    }
}

extension StudyScreening {
    /// Reads a screening from JSON, checks it against the study's questionnaire and stores it
    /// (audited `screening.set`); throws one line naming every problem, storing nothing then.
    static func save(_ data: Data, studyId: String, administration: StudyAdministration) async throws -> StudyScreening {
        let study = try await administration.existingStudy(studyId)
        let screening: StudyScreening
        do {
            screening = try JSONDecoder().decode(StudyScreening.self, from: data)
        } catch let error as DecodingError {
            throw TrialError("the screening is not JSON of a questionnaire, rules and an ineligibleMessage: \(APIRequestDecoder.describe(error))")
        }
        let document = try await administration.store.latestQuestionnaires(studyId: study.id).first { $0.id == screening.questionnaire }
        let problems = screening.problems(definition: document?.definition)
        guard problems.isEmpty else { throw TrialError("the screening cannot be used: " + problems.joined(separator: "; ")) }
        _ = try await administration.store.setScreening(screening, studyId: study.id, actor: administration.actor, now: administration.now)
        return screening
    }

    /// The screening as indented JSON with sorted keys and a final line break (`screening show`).
    static func json(_ screening: StudyScreening) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(screening), as: UTF8.self) + "\n"
    }
}
