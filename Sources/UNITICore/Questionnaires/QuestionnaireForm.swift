import Foundation
import UNITIProtocol

/// A questionnaire answered as a form: the person picks any question in any order and may change
/// an answer at any time (Shades Of Noise thesis 6.4.4, FA14–FA19). Unlike a
/// ``QuestionnaireSession``, which walks through the items once and ends in a finished sheet, a
/// form is never "submitted": every change is kept at once (``QuestionnaireFormStore``).
///
/// Topics:
/// - choosing: ``choose(_:for:)`` sets a single choice, or resets it when the same option is
///   chosen again (FA16); it toggles an option of a multiple choice;
/// - text: ``setText(_:for:)``, where empty text clears the answer;
/// - progress: ``isAnswered(_:)`` (FA17) and ``percentComplete`` (FA19).
public struct QuestionnaireForm: Sendable, Equatable {
    public let definition: QuestionnaireDefinition
    /// Item label → value; items without an answer are absent.
    public private(set) var answers: [String: AnswerValue]

    public init(definition: QuestionnaireDefinition, answers: [String: AnswerValue] = [:]) {
        self.definition = definition
        // Answers that no longer fit the definition (a newer version) are dropped, not misread.
        self.answers = answers.filter { label, value in
            guard let item = definition.item(labeled: label) else { return false }
            return Self.fits(value, item)
        }
        pruneHidden()
    }

    /// The questions shown with the answers so far, in order.
    public var questions: [QuestionnaireItem] {
        definition.visibleItems(given: answers).filter { $0.element.isQuestion }
    }

    public func isAnswered(_ label: String) -> Bool { answers[label] != nil }

    /// Share of the shown questions that have an answer, 0–100, rounded down (100 only when all are).
    public var percentComplete: Int {
        let shown = questions
        guard !shown.isEmpty else { return 100 }
        return shown.filter { isAnswered($0.label) }.count * 100 / shown.count
    }

    /// Chooses option `value` of a choice question: a single choice takes it, or becomes
    /// unanswered when it was the chosen one already; a multiple choice adds or removes it.
    public mutating func choose(_ value: Int, for label: String) throws {
        let item = try question(label)
        switch item.element {
        case .singleChoice(let options):
            try requireOption(value, options, label: label)
            answers[label] = answers[label] == .integer(value) ? nil : .integer(value)
        case .multipleChoice(let options, _, let maxSelected):
            try requireOption(value, options, label: label)
            var selected = Set<Int>()
            if case .choices(let list)? = answers[label] { selected = Set(list) }
            if selected.contains(value) {
                selected.remove(value)
            } else {
                if let maxSelected, selected.count >= maxSelected {
                    throw UNITIError(L("questionnaire.form.tooMany", ["label": label, "max": "\(maxSelected)"]))
                }
                selected.insert(value)
            }
            answers[label] = selected.isEmpty ? nil : .choices(options.map(\.value).filter(selected.contains))
        default:
            throw UNITIError(L("questionnaire.form.notChoice", ["label": label]))
        }
        pruneHidden()
    }

    /// Sets the answer of a free-text question; text that is empty after trimming clears it.
    public mutating func setText(_ text: String, for label: String) throws {
        let item = try question(label)
        guard case .freeText(_, let maxLength) = item.element else {
            throw UNITIError(L("questionnaire.form.notText", ["label": label]))
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let maxLength, trimmed.count > maxLength {
            throw UNITIError(L("questionnaire.form.tooLong", ["label": label, "max": "\(maxLength)"]))
        }
        answers[label] = trimmed.isEmpty ? nil : .text(trimmed)
        pruneHidden()
    }

    /// Removes the answer of a question.
    public mutating func clear(_ label: String) throws {
        _ = try question(label)
        answers[label] = nil
        pruneHidden()
    }

    private func question(_ label: String) throws -> QuestionnaireItem {
        guard let item = definition.item(labeled: label), item.element.isQuestion else {
            throw UNITIError(L("questionnaire.error.noSuchItem", ["label": label]))
        }
        guard questions.contains(where: { $0.label == label }) else {
            throw UNITIError(L("questionnaire.error.hiddenItem", ["label": label]))
        }
        return item
    }

    private func requireOption(_ value: Int, _ options: [ChoiceOption], label: String) throws {
        guard options.contains(where: { $0.value == value }) else {
            throw UNITIError(L("questionnaire.form.noOption", [
                "label": label, "value": "\(value)", "options": options.map { String($0.value) }.joined(separator: ", "),
            ]))
        }
    }

    /// Whether a stored value can belong to the item (a partial multiple choice counts).
    private static func fits(_ value: AnswerValue, _ item: QuestionnaireItem) -> Bool {
        if case .multipleChoice(let options, _, _) = item.element, case .choices(let list) = value {
            return list.allSatisfy { choice in options.contains { $0.value == choice } }
        }
        return AnswerSheetValidator.check(value, for: item) == nil
    }

    /// Drops answers to items that the current answers hide.
    private mutating func pruneHidden() {
        while true {
            let visible = definition.visibleLabels(given: answers)
            let hidden = answers.keys.filter { !visible.contains($0) }
            if hidden.isEmpty { return }
            for label in hidden { answers[label] = nil }
        }
    }
}
