import Foundation
import UNITIProtocol

/// How items and answers read as text in the person's language, shared by both front ends
/// and by summaries (`questionnaire preview`).
public struct QuestionnaireText {
    public let localizer: Localizer
    public let language: String

    public init(localizer: Localizer) {
        self.localizer = localizer
        self.language = localizer.language.rawValue
    }

    public func text(_ value: LocalizedText?) -> String {
        value?.text(in: language) ?? ""
    }

    /// The question line, with progress ("3/9 ") when the definition shows one item at a time.
    public func question(_ item: QuestionnaireItem, progress: (position: Int, total: Int)?) -> String {
        var line = text(item.text)
        if line.isEmpty { line = item.label }
        if let progress { line = "\(progress.position)/\(progress.total) " + line }
        if item.required { line += " *" }
        return line
    }

    /// Lines shown before the prompt: options, end labels, SAM pictograms.
    public func details(_ item: QuestionnaireItem) -> [String] {
        switch item.element {
        case .singleChoice(let options), .multipleChoice(let options, _, _):
            return options.map { "  \($0.value)) \(text($0.text))" }
        case .slider(let range):
            return endLabels(min: range.text(range.min, in: localizer.language), max: range.text(range.max, in: localizer.language),
                             minLabel: range.minLabel, maxLabel: range.maxLabel)
        case .scale(let min, let max, let minLabel, let maxLabel):
            return endLabels(min: String(min), max: String(max), minLabel: minLabel, maxLabel: maxLabel)
        case .samValence(let points), .samArousal(let points):
            // Printed once above the prompt; the person types the number under a figure.
            let figures = SAMPictograms.lines(figures: SAMPictograms.figures(for: item.element), selected: nil,
                                              highlight: .none)
            let ends = SAMPictograms.endLabels(for: item.element).map { localizer($0) }
            return figures + ["  1 = \(ends[0]), \(points) = \(ends[1])"]
        default:
            return []
        }
    }

    private func endLabels(min: String, max: String, minLabel: LocalizedText?, maxLabel: LocalizedText?) -> [String] {
        guard minLabel != nil || maxLabel != nil else { return [] }
        var parts: [String] = []
        if let minLabel { parts.append("\(min) = \(text(minLabel))") }
        if let maxLabel { parts.append("\(max) = \(text(maxLabel))") }
        return ["  " + parts.joined(separator: ", ")]
    }

    /// An answer as a person reads it: option texts for choices (after their codes unless
    /// `withCodes` is false, as "my answer sheets" shows them), yes/no words.
    public func describe(_ value: AnswerValue, for item: QuestionnaireItem, withCodes: Bool = true) -> String {
        func shown(_ option: ChoiceOption) -> String { withCodes ? "\(option.value) (\(text(option.text)))" : text(option.text) }
        switch (item.element, value) {
        case (.yesNo, .number(let number)):
            return number == 0 ? localizer("questionnaire.yes") : localizer("questionnaire.no")
        case (.singleChoice(let options), .number(let number)):
            let option = options.first { Double($0.value) == number }
            return option.map(shown) ?? value.description
        case (.multipleChoice(let options, _, _), .choices(let list)):
            return list.map { selected in
                let chosen = options.first { $0.value == selected }
                return chosen.map(shown) ?? String(selected)
            }.joined(separator: withCodes ? ", " : "; ")
        case (.slider(let range), .number(let number)):
            return range.text(number, in: localizer.language)
        default:
            return value.description
        }
    }
}

extension QuestionnaireText {
    /// An answer in the words the person chose it by (option texts, yes/no, the number or the
    /// text typed), on one line; "—" when there is none. The page shows answers this way,
    /// without the option codes that ``describe(_:for:)`` adds for coordinators.
    public func shownAnswer(_ value: AnswerValue?, for item: QuestionnaireItem) -> String {
        guard let value else { return localizer("questionnaire.page.noAnswer") }
        switch (item.element, value) {
        case (.singleChoice(let options), .number(let number)):
            return options.first { Double($0.value) == number }.map { text($0.text) } ?? value.description
        case (.multipleChoice(let options, _, _), .choices(let list)):
            return list.map { selected in
                options.first { $0.value == selected }.map { text($0.text) } ?? String(selected)
            }.joined(separator: ", ")
        case (_, .text(let typed)):
            return typed.replacingOccurrences(of: "\n", with: " ")
        default:
            return describe(value, for: item)
        }
    }
}
