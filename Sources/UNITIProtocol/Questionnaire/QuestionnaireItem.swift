import Foundation

/// One entry of a questionnaire: display text or a question.
///
/// The `label` is stable across versions and is what answers are keyed by on the wire (FHIR
/// `linkId`). JSON is flat: `{"type": "scale", "label": "loudness", "required": true,
/// "text": {...}, "min": 0, "max": 7}`.
public struct QuestionnaireItem: Codable, Hashable, Sendable {
    public var label: String
    /// The question or the display text.
    public var text: LocalizedText?
    public var required: Bool
    public var showIf: ItemCondition?
    public var element: QuestionnaireElement

    public init(label: String, text: LocalizedText? = nil, required: Bool = false,
                showIf: ItemCondition? = nil, element: QuestionnaireElement) {
        self.label = label
        self.text = text
        self.required = required
        self.showIf = showIf
        self.element = element
    }

    enum CodingKeys: String, CodingKey {
        case type, label, text, required, showIf
        case options, minSelected, maxSelected
        case min, max, step, minLabel, maxLabel, unit
        case points, multiline, maxLength
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        label = try c.decode(String.self, forKey: .label)
        text = try c.decodeIfPresent(LocalizedText.self, forKey: .text)
        required = try c.decodeIfPresent(Bool.self, forKey: .required) ?? false
        showIf = try c.decodeIfPresent(ItemCondition.self, forKey: .showIf)
        switch type {
        case "headline": element = .headline
        case "text": element = .text
        case "yesNo": element = .yesNo
        case "singleChoice":
            element = .singleChoice(options: try c.decode([ChoiceOption].self, forKey: .options))
        case "multipleChoice":
            element = .multipleChoice(options: try c.decode([ChoiceOption].self, forKey: .options),
                                      minSelected: try c.decodeIfPresent(Int.self, forKey: .minSelected),
                                      maxSelected: try c.decodeIfPresent(Int.self, forKey: .maxSelected))
        case "slider":
            element = .slider(SliderRange(
                min: try c.decode(Double.self, forKey: .min),
                max: try c.decode(Double.self, forKey: .max),
                step: try c.decodeIfPresent(Double.self, forKey: .step) ?? 1,
                minLabel: try c.decodeIfPresent(LocalizedText.self, forKey: .minLabel),
                maxLabel: try c.decodeIfPresent(LocalizedText.self, forKey: .maxLabel),
                unit: try c.decodeIfPresent(String.self, forKey: .unit)))
        case "scale":
            element = .scale(min: try c.decode(Int.self, forKey: .min), max: try c.decode(Int.self, forKey: .max),
                             minLabel: try c.decodeIfPresent(LocalizedText.self, forKey: .minLabel),
                             maxLabel: try c.decodeIfPresent(LocalizedText.self, forKey: .maxLabel))
        case "samValence":
            element = .samValence(points: try c.decodeIfPresent(Int.self, forKey: .points) ?? 9)
        case "samArousal":
            element = .samArousal(points: try c.decodeIfPresent(Int.self, forKey: .points) ?? 9)
        case "freeText":
            element = .freeText(multiline: try c.decodeIfPresent(Bool.self, forKey: .multiline) ?? false,
                                maxLength: try c.decodeIfPresent(Int.self, forKey: .maxLength))
        case "date": element = .date
        default: element = .unsupported(typeName: type)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(element.typeName, forKey: .type)
        try c.encode(label, forKey: .label)
        try c.encodeIfPresent(text, forKey: .text)
        if required { try c.encode(true, forKey: .required) }
        try c.encodeIfPresent(showIf, forKey: .showIf)
        switch element {
        case .headline, .text, .yesNo, .date, .unsupported: break
        case .singleChoice(let options):
            try c.encode(options, forKey: .options)
        case .multipleChoice(let options, let minSelected, let maxSelected):
            try c.encode(options, forKey: .options)
            try c.encodeIfPresent(minSelected, forKey: .minSelected)
            try c.encodeIfPresent(maxSelected, forKey: .maxSelected)
        case .slider(let range):
            try c.encode(range.min, forKey: .min)
            try c.encode(range.max, forKey: .max)
            try c.encode(range.step, forKey: .step)
            try c.encodeIfPresent(range.minLabel, forKey: .minLabel)
            try c.encodeIfPresent(range.maxLabel, forKey: .maxLabel)
            try c.encodeIfPresent(range.unit, forKey: .unit)
        case .scale(let min, let max, let minLabel, let maxLabel):
            try c.encode(min, forKey: .min)
            try c.encode(max, forKey: .max)
            try c.encodeIfPresent(minLabel, forKey: .minLabel)
            try c.encodeIfPresent(maxLabel, forKey: .maxLabel)
        case .samValence(let points), .samArousal(let points):
            try c.encode(points, forKey: .points)
        case .freeText(let multiline, let maxLength):
            try c.encode(multiline, forKey: .multiline)
            try c.encodeIfPresent(maxLength, forKey: .maxLength)
        }
    }
}
