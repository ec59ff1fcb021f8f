import Foundation
import UNITIProtocol

/// A posted questionnaire form read against its definition: the value of every item on the page,
/// each checked with the shared `AnswerSheetValidator` rules, merged into the answers so far.
///
/// Fields are named by the item's position (`q3`; a multiple-choice option `q3_1`), never by the
/// label, so no label can clash with another field or need escaping. What a person typed is never
/// lost: an answer that is refused stays in ``shown`` (and goes back into the form with its
/// message in ``problems``), and the answers given before are kept.
struct PortalAnswerForm {
    static func field(_ index: Int) -> String { "q\(index)" }
    static func optionField(_ index: Int, _ option: Int) -> String { "q\(index)_\(option)" }

    /// The answers after this form: accepted values, each with the time it was given.
    var answers: [String: Answer]
    /// What each field shows when the form comes back: the answers, or what was typed and refused.
    var shown: [String: AnswerValue]
    /// Item label → what is wrong with what was typed there.
    var problems: [String: PortalAnswerProblem]

    /// What one field holds.
    enum Reading: Equatable {
        case empty
        case value(AnswerValue)
        /// Not even of the right shape (letters in a number field); the text as typed.
        case unreadable(String)
    }

    /// Reads the items at `indexes` of `definition` from the form into `answers`, then drops the
    /// answers of items the new answers hide (the server applies `showIf` whether or not a
    /// script did in the browser).
    static func read(_ fields: [String: String], items indexes: [Int], of definition: QuestionnaireDefinition,
                     into previous: [String: Answer], at now: OffsetTimestamp) -> PortalAnswerForm {
        var answers = previous
        var shown = previous.mapValues(\.value)
        var problems: [String: PortalAnswerProblem] = [:]
        for index in indexes where definition.items.indices.contains(index) {
            let item = definition.items[index]
            if case .unsupported = item.element { continue }
            guard item.element.isQuestion else { continue }
            switch reading(item, at: index, from: fields) {
            case .empty:
                answers[item.label] = nil
                shown[item.label] = nil
            case .unreadable(let typed):
                shown[item.label] = .text(typed)
                problems[item.label] = PortalAnswerProblem(code: .wrongType, item: item)
            case .value(let value):
                shown[item.label] = value
                if let problem = AnswerSheetValidator.check(value, for: item) {
                    problems[item.label] = PortalAnswerProblem(code: problem.code, item: item)
                } else if answers[item.label]?.value != value {
                    answers[item.label] = Answer(value: value, answeredAt: now)
                }
            }
        }
        answers = visibleOnly(answers, in: definition)
        return PortalAnswerForm(answers: answers, shown: shown, problems: problems)
    }

    /// The answers without those to items hidden by the others (repeated, as hiding cascades).
    static func visibleOnly(_ answers: [String: Answer], in definition: QuestionnaireDefinition) -> [String: Answer] {
        var answers = answers
        while true {
            let visible = definition.visibleLabels(given: answers.mapValues(\.value))
            let hidden = answers.keys.filter { !visible.contains($0) }
            if hidden.isEmpty { return answers }
            for label in hidden { answers[label] = nil }
        }
    }

    /// The value of one item's field(s).
    static func reading(_ item: QuestionnaireItem, at index: Int, from fields: [String: String]) -> Reading {
        let raw = fields[field(index)] ?? ""
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        func integer() -> Reading {
            guard !trimmed.isEmpty else { return .empty }
            guard let value = Int(trimmed) else { return .unreadable(raw) }
            return .value(.integer(value))
        }
        switch item.element {
        case .headline, .text, .unsupported:
            return .empty
        case .yesNo, .singleChoice, .scale, .samValence, .samArousal:
            return integer()
        case .multipleChoice(let options, _, _):
            let selected = options.indices.filter { fields[optionField(index, $0)] != nil }.map { options[$0].value }
            return selected.isEmpty ? .empty : .value(.choices(selected))
        case .slider:
            guard !trimmed.isEmpty else { return .empty }
            // A decimal comma, as German keyboards type it, is a decimal point.
            guard let value = Double(trimmed.replacingOccurrences(of: ",", with: ".")), value.isFinite else { return .unreadable(raw) }
            return .value(.number(value))
        case .freeText:
            guard !trimmed.isEmpty else { return .empty }
            return .value(.text(raw.replacingOccurrences(of: "\r\n", with: "\n")))
        case .date:
            guard !trimmed.isEmpty else { return .empty }
            return .value(.text(trimmed))
        }
    }
}

/// Why an item's answer is not accepted, as a person reads it next to the item: the validator's
/// rule (its stable code) in the page's language, with the item's bounds.
struct PortalAnswerProblem: Equatable {
    /// The last part of the string key: the validator's code (`outOfRange`), or `invalidDate`.
    var key: String
    var values: [String: String] = [:]

    init(code: ValidationProblem.Code, item: QuestionnaireItem) {
        key = code.rawValue
        switch item.element {
        case .slider(let range):
            values = ["min": AnswerValue.number(range.min).description, "max": AnswerValue.number(range.max).description,
                      "step": AnswerValue.number(range.step).description]
        case .scale(let min, let max, _, _):
            values = ["min": String(min), "max": String(max)]
        case .samValence(let points), .samArousal(let points):
            values = ["min": "1", "max": String(points)]
        case .freeText(_, let maxLength):
            values = ["max": maxLength.map(String.init) ?? ""]
        case .multipleChoice(let options, let minSelected, let maxSelected):
            values = ["min": String(minSelected ?? 0), "max": String(maxSelected ?? options.count)]
        default:
            break
        }
        if code == .wrongType, case .date = item.element { key = "invalidDate" }
    }

    /// The line shown beside the item.
    func message(_ language: String) -> String {
        PortalText.text("portal.questionnaire.problem.\(key)", language, values)
    }
}
