import Foundation

/// A questionnaire definition as a FHIR R4 `Questionnaire`, for any module that exports the
/// questionnaires a person answered (the format was made to map onto it, see
/// ``QuestionnaireDefinition``): `label` → `linkId`, `showIf` → `enableWhen`, texts in English
/// with the other languages as `translation` extensions.
///
/// Item types (``fhirType(of:)``): headline and text → `display`; yesNo → `boolean`;
/// singleChoice → `choice` with `answerOption`s whose `valueCoding.code` is the stored value;
/// multipleChoice → the same with `repeats`; scale and the SAM manikins → `integer`; slider →
/// `integer` when its values are whole, else `decimal` (both with the core `minValue` and
/// `maxValue` extensions); freeText → `string`, or `text` when multi-line, with `maxLength`;
/// date → `date`; an element type this version does not know → `string`, so an answer to it is
/// still exported.
extension QuestionnaireDefinition {
    /// The FHIR `Questionnaire` resource (without `id`, which the bundle writer adds).
    /// - Parameter url: its canonical URL, the one answer sheets name.
    public func fhirQuestionnaire(url: String) -> JSONValue {
        let title = FHIR.localized(self.title)
        let intro = self.intro.map(FHIR.localized)
        return FHIR.object([
            "resourceType": .string("Questionnaire"),
            "url": .string(url),
            "identifier": .array([.object(["value": .string(id)])]),
            "version": .string(String(version)),
            "title": .string(title.value),
            "_title": title.element,
            "status": .string("active"),
            "subjectType": .array([.string("Patient")]),
            "language": .string(FHIR.baseLanguage),
            "description": FHIR.string(intro?.value),
            "_description": intro?.element,
            "item": items.isEmpty ? nil : .array(items.map { fhirItem($0) }),
        ])
    }

    /// The FHIR item type of an element.
    public static func fhirType(of element: QuestionnaireElement) -> String {
        switch element {
        case .headline, .text: return "display"
        case .yesNo: return "boolean"
        case .singleChoice, .multipleChoice: return "choice"
        case .scale, .samValence, .samArousal: return "integer"
        case .slider: return element.hasIntegerValues ? "integer" : "decimal"
        case .freeText(let multiline, _): return multiline ? "text" : "string"
        case .date: return "date"
        case .unsupported: return "string"
        }
    }

    func fhirItem(_ item: QuestionnaireItem) -> JSONValue {
        let type = Self.fhirType(of: item.element)
        let text = item.text.map(FHIR.localized)
        var members: [String: JSONValue?] = [
            "linkId": .string(item.label),
            "text": FHIR.string(text?.value),
            "_text": text?.element,
            "type": .string(type),
        ]
        if type != "display" {
            // FHIR forbids `required` on display items (que-6); ours are never required.
            if item.required { members["required"] = .bool(true) }
        }
        let conditions = item.showIf.map(fhirEnableWhen) ?? []
        if !conditions.isEmpty {
            members["enableWhen"] = .array(conditions)
            // One condition needs no behaviour; several mean "any of them" (ItemCondition).
            if conditions.count > 1 { members["enableBehavior"] = .string("any") }
        }
        switch item.element {
        case .singleChoice(let options):
            members["answerOption"] = .array(options.map(fhirAnswerOption))
        case .multipleChoice(let options, _, _):
            members["answerOption"] = .array(options.map(fhirAnswerOption))
            members["repeats"] = .bool(true)
        case .scale(let min, let max, _, _):
            members["extension"] = Self.bounds(.number(Double(min)), .number(Double(max)), type: type)
        case .samValence(let points), .samArousal(let points):
            members["extension"] = Self.bounds(.number(1), .number(Double(points)), type: type)
        case .slider(let range):
            members["extension"] = Self.bounds(.number(range.min), .number(range.max), type: type)
        case .freeText(_, let maxLength):
            members["maxLength"] = maxLength.map(FHIR.integer)
        case .headline, .text, .yesNo, .date, .unsupported:
            break
        }
        return FHIR.object(members)
    }

    private func fhirAnswerOption(_ option: ChoiceOption) -> JSONValue {
        let text = FHIR.localized(option.text)
        var coding: [String: JSONValue?] = ["code": .string(String(option.value)), "display": .string(text.value)]
        coding["_display"] = text.element
        return .object(["valueCoding": FHIR.object(coding)])
    }

    /// The core `minValue` and `maxValue` extensions, typed like the item's answers.
    private static func bounds(_ low: JSONValue, _ high: JSONValue, type: String) -> JSONValue {
        let key = type == "integer" ? "valueInteger" : "valueDecimal"
        return .array([
            .object(["url": .string(FHIR.minValueExtension), key: low]),
            .object(["url": .string(FHIR.maxValueExtension), key: high]),
        ])
    }

    /// `showIf` as `enableWhen` conditions (operator `=`), one per value, each typed like the
    /// answers of the item it looks at. A value that has no FHIR form for that item (or a
    /// condition on an item the definition lacks) is left out rather than written wrongly.
    func fhirEnableWhen(_ condition: ItemCondition) -> [JSONValue] {
        guard let target = item(labeled: condition.label) else { return [] }
        return condition.values.compactMap { value in
            guard let answer = Self.fhirAnswer(value, for: target.element).first else { return nil }
            let (key, typed) = answer
            // enableWhen names its answer `answerX` where an answer names it `valueX`.
            let name = "answer" + key.dropFirst("value".count)
            return .object(["question": .string(condition.label), "operator": .string("="), name: typed])
        }
    }

    /// An answer in FHIR form for an item of `element`: the `value[x]` member name and value,
    /// one per selected option for a multiple choice. Empty when the value does not fit the
    /// element (a text for a scale).
    public static func fhirAnswer(_ value: AnswerValue, for element: QuestionnaireElement,
                                  options: [ChoiceOption] = []) -> [(String, JSONValue)] {
        func coding(_ code: Int) -> JSONValue {
            let display = options.first { $0.value == code }.map { FHIR.localized($0.text).value }
            return FHIR.object(["code": .string(String(code)), "display": FHIR.string(display)])
        }
        switch (element, value) {
        case (.yesNo, .number(let number)) where number == 0 || number == 1:
            return [("valueBoolean", .bool(number == 0))]  // yes = 0, no = 1 (Track Your Tinnitus)
        case (.singleChoice, .number(let number)):
            guard let code = AnswerValue.wholeNumber(number) else { return [] }
            return [("valueCoding", coding(code))]
        case (.multipleChoice, .choices(let codes)):
            return codes.map { ("valueCoding", coding($0)) }
        case (.multipleChoice, .number(let number)):
            guard let code = AnswerValue.wholeNumber(number) else { return [] }
            return [("valueCoding", coding(code))]
        case (.scale, .number(let number)), (.samValence, .number(let number)), (.samArousal, .number(let number)):
            guard let whole = AnswerValue.wholeNumber(number) else { return [] }
            return [("valueInteger", FHIR.integer(whole))]
        case (.slider, .number(let number)):
            if fhirType(of: element) == "integer", let whole = AnswerValue.wholeNumber(number) {
                return [("valueInteger", FHIR.integer(whole))]
            }
            return [("valueDecimal", .number(number))]
        case (.date, .text(let text)):
            return [("valueDate", .string(text))]
        case (.freeText, .text(let text)), (.unsupported, .text(let text)):
            return [("valueString", .string(text))]
        case (.unsupported, _):
            return [("valueString", .string(value.description))]
        default:
            return []
        }
    }

    /// An answer whose item is unknown (not in the definition, or no definition at hand),
    /// typed by its value alone.
    public static func fhirAnswer(untyped value: AnswerValue) -> [(String, JSONValue)] {
        switch value {
        case .number(let number):
            if let whole = AnswerValue.wholeNumber(number) { return [("valueInteger", FHIR.integer(whole))] }
            return [("valueDecimal", .number(number))]
        case .choices(let codes):
            return codes.map { ("valueCoding", .object(["code": .string(String($0))])) }
        case .text(let text):
            return [("valueString", .string(text))]
        }
    }
}
