import Foundation

/// An answer sheet as a FHIR R4 `QuestionnaireResponse` (see ``AnswerSheet``): one item per
/// answered question in the definition's order, `linkId` the item's label, each answer typed
/// as the `Questionnaire` from ``QuestionnaireDefinition/fhirQuestionnaire(url:)`` declares it.
extension AnswerSheet {
    /// - Parameters:
    ///   - definition: the version the sheet answered, when known; without it the response
    ///     names no questionnaire and types each answer by its value alone.
    ///   - questionnaireURL: the canonical URL of that definition's `Questionnaire`.
    ///   - subject: the person's `Patient`.
    public func fhirQuestionnaireResponse(definition: QuestionnaireDefinition?, questionnaireURL: String?,
                                          subject: FHIRResourceID) -> JSONValue {
        var items: [JSONValue] = []
        var exported = Set<String>()
        for item in definition?.questions ?? [] {
            guard let answer = answers[item.label] else { continue }
            var options: [ChoiceOption] = []
            switch item.element {
            case .singleChoice(let list), .multipleChoice(let list, _, _): options = list
            default: break
            }
            var values = QuestionnaireDefinition.fhirAnswer(answer.value, for: item.element, options: options)
            // A value that does not fit its item (never written by this program) still goes out.
            if values.isEmpty { values = QuestionnaireDefinition.fhirAnswer(untyped: answer.value) }
            exported.insert(item.label)
            guard !values.isEmpty else { continue }  // an empty multiple choice: nothing to say
            items.append(Self.fhirItem(label: item.label, text: item.text.map { FHIR.localized($0).value }, values: values))
        }
        // Answers the definition does not know, by label, so none is lost.
        for label in answers.keys.filter({ !exported.contains($0) }).sorted() {
            let values = QuestionnaireDefinition.fhirAnswer(untyped: answers[label]!.value)
            guard !values.isEmpty else { continue }
            items.append(Self.fhirItem(label: label, text: nil, values: values))
        }
        let canonical = definition == nil ? nil : questionnaireURL
        return FHIR.object([
            "resourceType": .string("QuestionnaireResponse"),
            "identifier": .object(["system": .string(FHIR.uriIdentifierSystem),
                                   "value": .string("urn:uuid:\(id.uuidString.lowercased())")]),
            "questionnaire": FHIR.string(canonical),
            "status": .string(isPartial ? "in-progress" : "completed"),
            "subject": FHIR.reference(subject),
            "authored": .string((endedAt ?? startedAt).text),
            "language": FHIR.string(language),
            "item": items.isEmpty ? nil : .array(items),
            "extension": fhirPromptExtension.map { .array([$0]) },
        ])
    }

    /// The prompt this sheet answers, as ``FHIR/promptExtension`` with the parts `initiatedBy`
    /// (`prompt` or `participant`), `promptId`, `deliveredAt` (the delivery, with the person's
    /// offset) and `timing` (`in-time`, `late` or `self-initiated`); nil for a sheet that records
    /// neither a prompt nor who began it (older clients).
    public var fhirPromptExtension: JSONValue? {
        guard promptId != nil || initiatedBy != nil else { return nil }
        var parts: [JSONValue] = []
        func part(_ url: String, _ key: String, _ value: String?) {
            if let value { parts.append(.object(["url": .string(url), key: .string(value)])) }
        }
        let answered = promptId != nil
        part("initiatedBy", "valueCode", (initiatedBy ?? (answered ? .prompt : .participant)).rawValue)
        part("promptId", "valueString", promptId)
        part("deliveredAt", "valueDateTime", promptedAt?.text)
        part("timing", "valueCode", answered ? (late == true ? "late" : "in-time") : "self-initiated")
        return .object(["url": .string(FHIR.promptExtension), "extension": .array(parts)])
    }

    private static func fhirItem(label: String, text: String?, values: [(String, JSONValue)]) -> JSONValue {
        FHIR.object([
            "linkId": .string(label),
            "text": FHIR.string(text),
            "answer": .array(values.map { key, value in .object([key: value]) }),
        ])
    }
}
