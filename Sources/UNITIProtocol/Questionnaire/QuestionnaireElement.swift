import Foundation

/// What an item is: a piece of text to show, or a question of one of the element types that
/// the five theses use. Decoded from the item's `"type"` field; a type this version does not
/// know becomes `.unsupported(typeName)` so that the rest of the questionnaire still loads.
public enum QuestionnaireElement: Hashable, Sendable {
    /// A heading between groups of items.
    case headline
    /// Display text (instructions, explanations).
    case text
    /// Yes or no, stored as yes = 0 and no = 1 (Track Your Tinnitus thesis).
    case yesNo
    /// One of several options; a person may reset it to unanswered.
    case singleChoice(options: [ChoiceOption])
    /// Any number of options (checkboxes), optionally bounded.
    case multipleChoice(options: [ChoiceOption], minSelected: Int?, maxSelected: Int?)
    /// A continuous slider with no initial value: nothing is stored until it is moved.
    case slider(SliderRange)
    /// An integer scale such as 0–7, with labels at both ends.
    case scale(min: Int, max: Int, minLabel: LocalizedText?, maxLabel: LocalizedText?)
    /// Self-Assessment Manikin for valence (unpleasant–pleasant), 9 or 5 points.
    case samValence(points: Int)
    /// Self-Assessment Manikin for arousal (calm–excited), 9 or 5 points.
    case samArousal(points: Int)
    /// Free text, single or multi-line, optionally limited in length (in characters).
    case freeText(multiline: Bool, maxLength: Int?)
    /// A calendar date `YYYY-MM-DD`.
    case date
    /// An element type this version does not know. Shown as "not supported by this version";
    /// if it is required, the sheet cannot be submitted.
    case unsupported(typeName: String)

    /// The `"type"` string in JSON.
    public var typeName: String {
        switch self {
        case .headline: return "headline"
        case .text: return "text"
        case .yesNo: return "yesNo"
        case .singleChoice: return "singleChoice"
        case .multipleChoice: return "multipleChoice"
        case .slider: return "slider"
        case .scale: return "scale"
        case .samValence: return "samValence"
        case .samArousal: return "samArousal"
        case .freeText: return "freeText"
        case .date: return "date"
        case .unsupported(let name): return name
        }
    }

    /// Every element type this version understands.
    public static let knownTypeNames = ["headline", "text", "yesNo", "singleChoice", "multipleChoice",
                                        "slider", "scale", "samValence", "samArousal", "freeText", "date"]

    /// Whether the item takes an answer (headline and text do not; an unsupported one might).
    public var isQuestion: Bool {
        switch self {
        case .headline, .text: return false
        default: return true
        }
    }

    /// The smallest and largest value a numeric answer can have, for scoring and reversing.
    /// Nil for elements whose answers are not single numbers.
    public var numericBounds: (min: Double, max: Double)? {
        switch self {
        case .yesNo: return (0, 1)
        case .singleChoice(let options):
            let values = options.map { Double($0.value) }
            guard let low = values.min(), let high = values.max() else { return nil }
            return (low, high)
        case .multipleChoice(let options, _, _):
            // Scored as the sum of the selected values.
            let positive = options.map(\.value).filter { $0 > 0 }.reduce(0, +)
            let negative = options.map(\.value).filter { $0 < 0 }.reduce(0, +)
            return (Double(negative), Double(positive))
        case .slider(let range): return (range.min, range.max)
        case .scale(let min, let max, _, _): return (Double(min), Double(max))
        case .samValence(let points), .samArousal(let points): return (1, Double(points))
        default: return nil
        }
    }

    /// Whether every answer is a whole number (decides how grade bands must join).
    public var hasIntegerValues: Bool {
        switch self {
        case .slider(let range):
            return range.min.rounded() == range.min && range.step.rounded() == range.step
        case .yesNo, .singleChoice, .multipleChoice, .scale, .samValence, .samArousal: return true
        default: return false
        }
    }
}

/// One option of a choice: the value stored and sent, and the text shown.
public struct ChoiceOption: Codable, Hashable, Sendable {
    public var value: Int
    public var text: LocalizedText

    public init(value: Int, text: LocalizedText) {
        self.value = value
        self.text = text
    }
}

/// The range of a slider. There is deliberately no initial value: a thumb shown at a default
/// position anchors the answer, so the thumb appears only once the person moves it.
public struct SliderRange: Hashable, Sendable {
    public var min: Double
    public var max: Double
    public var step: Double
    public var minLabel: LocalizedText?
    public var maxLabel: LocalizedText?
    /// Written after the value wherever it is shown, e.g. `%` (Track Your Hearing's sliders
    /// show their value in percent while they move). At most 8 characters.
    public var unit: String?

    public init(min: Double, max: Double, step: Double, minLabel: LocalizedText? = nil, maxLabel: LocalizedText? = nil,
                unit: String? = nil) {
        self.min = min
        self.max = max
        self.step = step
        self.minLabel = minLabel
        self.maxLabel = maxLabel
        self.unit = unit
    }

    /// A value with the unit, if any: `54 %`.
    public func text(_ value: Double) -> String {
        let number = AnswerValue.number(value).description
        return unit.map { "\(number) \($0)" } ?? number
    }

    /// Whether `value` lies in the range on a step (with a tolerance for binary fractions).
    public func contains(_ value: Double) -> Bool {
        guard value.isFinite, value >= min - 1e-9, value <= max + 1e-9 else { return false }
        guard step > 0 else { return true }
        let steps = (value - min) / step
        return abs(steps - steps.rounded()) < 1e-6
    }

    /// The number of positions on the slider (min and max included).
    public var positionCount: Int {
        guard step > 0, max > min else { return 1 }
        return Int(((max - min) / step).rounded()) + 1
    }

    /// The value at position `index` (0 = min).
    public func value(at index: Int) -> Double {
        let raw = min + Double(index) * step
        // Round away binary noise such as 0.30000000000000004.
        return (raw * 1e9).rounded() / 1e9
    }
}
