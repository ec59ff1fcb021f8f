import Foundation
import UNITIProtocol

/// A rule by which the server tells a study's team about a participant without anyone looking
/// (REDCap's alerts, Beiwe's and mindLAMP's flags), in one of four kinds:
/// - **safety**: a sheet of a questionnaire has an item's answer at or above / at or below a
///   threshold, or a score (the questionnaire's scoring) at or above / below one or in one of
///   some grades; checked for every sheet that arrives after the rule was made (``AlertMonitor``);
/// - **adherence**: the participant answered fewer than `percent` % of their prompts in time over
///   the last `days` days (only with at least one prompt delivered then);
/// - **silence**: nothing of theirs arrived (no sheet, no prompt event, no renewed sign-in) for
///   `days` days since they joined;
/// - **consent**: the study's current consent version has waited for their agreement `days` days.
///
/// It mails the members of the study's team with one of `roles` (names the pseudonym and the rule,
/// never an answer) and shows the alert until a member marks it seen. `reviewed` says whether the
/// team looks at every such alert: the portal tells a participant whose sheet raised a reviewed
/// safety alert that the team will look at it, and says nothing of the kind otherwise, so the
/// program never promises what the team does not do.
struct AlertRule: Codable, Sendable, Hashable {
    enum Kind: String, Codable, Sendable, CaseIterable {
        case safety, adherence, silence, consent
    }

    /// How a safety rule compares: `atLeast` (the value is the threshold or more), `atMost`, or
    /// `grade` (a score's grade is one of ``grades``).
    enum Comparison: String, Codable, Sendable, CaseIterable {
        case atLeast, atMost, grade
    }

    var name: String
    var kind: Kind
    var questionnaireId: String?
    /// The item's label (safety on an answer) or nil.
    var item: String?
    /// The score's id (safety on a score) or nil.
    var score: String?
    var comparison: Comparison?
    var threshold: Double?
    var grades: [String]?
    /// Adherence: the least rate in percent.
    var percent: Double?
    /// Adherence: the period; silence and consent: how long.
    var days: Int?
    var roles: [StudyRole]
    var reviewed: Bool

    static let maximumDays = 365
    static let maximumNameLength = 120

    /// Whether a sheet's answers meet the rule (a safety rule on the sheet's questionnaire), with
    /// the definition the sheet answered (for its scoring).
    func matches(_ sheet: AnswerSheet, definition: QuestionnaireDefinition) -> Bool {
        guard kind == .safety, sheet.questionnaireID == questionnaireId, let comparison else { return false }
        if let item {
            guard let answer = sheet.answers[item],
                  let element = definition.item(labeled: item)?.element,
                  let value = QuestionnaireScorer.numericValue(of: answer.value, for: element) else { return false }
            return compare(value, comparison)
        }
        guard let score else { return false }
        guard let result = QuestionnaireScorer.scores(for: definition, answers: sheet.values).first(where: { $0.id == score }) else { return false }
        if comparison == .grade { return result.grade.map { (grades ?? []).contains($0) } ?? false }
        return result.value.map { compare($0, comparison) } ?? false
    }

    private func compare(_ value: Double, _ comparison: Comparison) -> Bool {
        guard let threshold else { return false }
        switch comparison {
        case .atLeast: return value >= threshold - 1e-9
        case .atMost: return value <= threshold + 1e-9
        case .grade: return false
        }
    }

    /// What is wrong with the rule for a study with these questionnaires, by field (`name`,
    /// `questionnaire`, `target`, `threshold`, `grades`, `percent`, `days`, `roles`), as
    /// `console.alerts.error.*` keys; empty when it can be saved.
    func problems(questionnaires: [String: QuestionnaireDefinition]) -> [String: String] {
        var problems: [String: String] = [:]
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed.count > Self.maximumNameLength { problems["name"] = "console.alerts.error.name" }
        if roles.isEmpty { problems["roles"] = "console.alerts.error.roles" }
        switch kind {
        case .safety:
            guard let questionnaireId, let definition = questionnaires[questionnaireId] else {
                problems["questionnaire"] = "console.alerts.error.questionnaire"
                break
            }
            guard let comparison else { problems["threshold"] = "console.alerts.error.comparison"; break }
            if let item {
                guard let element = definition.item(labeled: item)?.element, element.isNumeric else {
                    problems["target"] = "console.alerts.error.item"
                    break
                }
                if comparison == .grade { problems["grades"] = "console.alerts.error.gradeOfItem" }
            } else if let score {
                guard let rule = definition.scoring?.scores.first(where: { $0.id == score }) else {
                    problems["target"] = "console.alerts.error.score"
                    break
                }
                if comparison == .grade {
                    let known = Set(rule.bands.map(\.grade))
                    if (grades ?? []).isEmpty || !Set(grades ?? []).isSubset(of: known) { problems["grades"] = "console.alerts.error.grades" }
                }
            } else {
                problems["target"] = "console.alerts.error.target"
            }
            if comparison != .grade, threshold.map({ !$0.isFinite }) ?? true { problems["threshold"] = "console.alerts.error.threshold" }
        case .adherence:
            if percent.map({ !(0...100).contains($0) }) ?? true { problems["percent"] = "console.alerts.error.percent" }
            fallthrough
        case .silence, .consent:
            if days.map({ !(1...Self.maximumDays).contains($0) }) ?? true { problems["days"] = "console.alerts.error.days" }
        }
        return problems
    }
}

extension QuestionnaireElement {
    /// Whether answers to the element are numbers a threshold can compare (a slider, a scale, a
    /// number, a single choice; a multiple choice by the sum of its values).
    var isNumeric: Bool { numericBounds != nil }
}
