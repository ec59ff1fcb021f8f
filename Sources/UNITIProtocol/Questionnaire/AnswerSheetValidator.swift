import Foundation

/// Checks an answer sheet against the definition it answers: every answer belongs to a shown
/// question, has the type the element expects and lies in its range, and (unless the sheet is
/// partial) every shown required item is answered. Returns all problems, each naming the item
/// label, so the client can re-ask exactly those items and the server can answer 422 naming them.
public enum AnswerSheetValidator {
    public static func validate(_ sheet: AnswerSheet, against definition: QuestionnaireDefinition) -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if sheet.questionnaireID != definition.id || sheet.questionnaireVersion != definition.version {
            problems.append(ValidationProblem(
                path: "questionnaireID", code: .wrongQuestionnaire,
                message: "sheet answers \(sheet.questionnaireID) v\(sheet.questionnaireVersion), not \(definition.id) v\(definition.version)"))
            return problems
        }
        problems += validate(answers: sheet.values, isPartial: sheet.isPartial, against: definition)
        return problems
    }

    /// The same checks on plain values (the engine uses this before it builds a sheet).
    public static func validate(answers: [String: AnswerValue], isPartial: Bool,
                                against definition: QuestionnaireDefinition) -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        let visible = definition.visibleLabels(given: answers)
        for label in answers.keys.sorted() {
            let path = "answers.\(label)"
            guard let item = definition.item(labeled: label) else {
                problems.append(ValidationProblem(path: path, code: .unknownLabel,
                                                  message: "no item of \(definition.id) v\(definition.version) has this label", label: label))
                continue
            }
            if !item.element.isQuestion {
                problems.append(ValidationProblem(path: path, code: .answerToDisplayItem,
                                                  message: "\(item.element.typeName) items take no answer", label: label))
                continue
            }
            if !visible.contains(label) {
                problems.append(ValidationProblem(path: path, code: .answerToHiddenItem,
                                                  message: "item is hidden by its condition on \"\(item.showIf?.label ?? "")\" and must not be answered",
                                                  label: label))
                continue
            }
            if let problem = check(answers[label]!, for: item) {
                problems.append(ValidationProblem(path: path, code: problem.code, message: problem.message, label: label))
            }
        }
        guard !isPartial else { return problems }
        for item in definition.items where item.required && visible.contains(item.label) && answers[item.label] == nil {
            if case .unsupported(let type) = item.element {
                problems.append(ValidationProblem(
                    path: "answers.\(item.label)", code: .requiredUnsupported,
                    message: "required item of type \"\(type)\" is not supported by this version, so the questionnaire cannot be submitted; update the program",
                    label: item.label))
            } else if item.element.isQuestion {
                problems.append(ValidationProblem(path: "answers.\(item.label)", code: .requiredMissing,
                                                  message: "required item is not answered", label: item.label))
            }
        }
        return problems
    }

    /// The rule an answer breaks for its item, if any.
    public static func check(_ value: AnswerValue, for item: QuestionnaireItem) -> (code: ValidationProblem.Code, message: String)? {
        func integer(in range: ClosedRange<Int>, _ what: String) -> (ValidationProblem.Code, String)? {
            guard case .number(let number) = value else { return (.wrongType, "expected \(what)") }
            guard let whole = AnswerValue.wholeNumber(number) else { return (.wrongType, "expected a whole number") }
            guard range.contains(whole) else { return (.outOfRange, "must be \(range.lowerBound)–\(range.upperBound)") }
            return nil
        }
        switch item.element {
        case .headline, .text:
            return (.answerToDisplayItem, "\(item.element.typeName) items take no answer")
        case .unsupported(let type):
            return (.wrongType, "items of type \"\(type)\" are not supported by this version and take no answer")
        case .yesNo:
            return integer(in: 0...1, "0 (yes) or 1 (no)")
        case .scale(let min, let max, _, _):
            guard max >= min else { return (.outOfRange, "the scale has no valid range") }
            return integer(in: min...max, "a whole number")
        case .samValence(let points), .samArousal(let points):
            return integer(in: 1...Swift.max(points, 1), "a whole number")
        case .singleChoice(let options):
            guard case .number(let number) = value else { return (.wrongType, "expected one option value") }
            guard let whole = AnswerValue.wholeNumber(number), options.contains(where: { $0.value == whole }) else {
                return (.unknownChoice, "must be one of \(options.map { String($0.value) }.joined(separator: ", "))")
            }
            return nil
        case .multipleChoice(let options, let minSelected, let maxSelected):
            guard case .choices(let selected) = value else { return (.wrongType, "expected an array of option values") }
            let known = Set(options.map(\.value))
            if let unknown = selected.first(where: { !known.contains($0) }) {
                return (.unknownChoice, "\(unknown) is not an option; options are \(options.map { String($0.value) }.joined(separator: ", "))")
            }
            if Set(selected).count != selected.count { return (.duplicateChoice, "an option is selected twice") }
            if let low = minSelected, selected.count < low { return (.selectionCount, "select at least \(low)") }
            if let high = maxSelected, selected.count > high { return (.selectionCount, "select at most \(high)") }
            return nil
        case .slider(let range):
            guard case .number(let number) = value else { return (.wrongType, "expected a number") }
            guard number.isFinite, number >= range.min - 1e-9, number <= range.max + 1e-9 else {
                return (.outOfRange, "must be \(AnswerValue.number(range.min))–\(AnswerValue.number(range.max))")
            }
            guard range.contains(number) else {
                return (.notOnStep, "must be on a step of \(AnswerValue.number(range.step)) from \(AnswerValue.number(range.min))")
            }
            return nil
        case .freeText(_, let maxLength):
            guard case .text(let text) = value else { return (.wrongType, "expected text") }
            if let maxLength, text.count > maxLength { return (.tooLong, "must be at most \(maxLength) characters") }
            return nil
        case .date:
            guard case .text(let text) = value else { return (.wrongType, "expected a date YYYY-MM-DD") }
            guard CalendarDay.isValid(text) else { return (.wrongType, "expected a date YYYY-MM-DD") }
            return nil
        }
    }
}
