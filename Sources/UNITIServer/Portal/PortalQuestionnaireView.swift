import Foundation
import UNITIProtocol
import UNITIText

/// A questionnaire's items as the templates show them: one ``Item`` per item with a flag for
/// its element type (`isScale`, `isSlider`, ...), its options with the one chosen, what the
/// field shows, the message beside it, and whether `showIf` hides it for now.
///
/// Every value here reaches the page through `{{ }}` and is escaped there; the pictograms of the
/// Self-Assessment Manikin are drawn by the template's inline SVG from plain numbers.
struct PortalQuestionnaireView {
    let definition: QuestionnaireDefinition
    let language: String
    /// What each item's field shows (answers, or what was typed and refused).
    var shown: [String: AnswerValue]
    var problems: [String: PortalAnswerProblem] = [:]

    /// The items at `indexes`; with `conditions`, each carries its `showIf` for the page's script.
    func items(_ indexes: [Int], conditions: Bool) -> [Item] {
        let visible = definition.visibleLabels(given: shown)
        return indexes.map { item(at: $0, visible: visible.contains(definition.items[$0].label), conditions: conditions) }
    }

    private func text(_ text: LocalizedText?) -> String? {
        text.map { $0.text(in: language) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private func t(_ key: String, _ values: [String: String] = [:]) -> String {
        PortalText.text("portal.questionnaire.\(key)", language, values)
    }

    private func item(at index: Int, visible: Bool, conditions: Bool) -> Item {
        let item = definition.items[index]
        let field = PortalAnswerForm.field(index)
        var values = Item(field: field, label: item.label)
        values.text = text(item.text)
        values.required = item.required && item.element.isQuestion
        values.hidden = !visible
        values.problem = problems[item.label]?.message(language)
        if conditions, let condition = item.showIf, let parent = definition.items.firstIndex(where: { $0.label == condition.label }) {
            values.showIf = Self.conditionJSON(field: PortalAnswerForm.field(parent), condition.values)
        }
        let value = shown[item.label]
        // Radio groups: the options, one checked, and a "no answer" choice that resets the item.
        func radios(_ options: [(value: Int, text: String)], pictogram: ((Int) -> Manikin)? = nil) -> [Option] {
            var list: [Option] = options.enumerated().map { position, option in
                var entry = Option(id: "\(field)-\(position)", value: String(option.value), text: option.text)
                entry.checked = value?.integer == option.value
                if let manikin = pictogram?(option.value) {
                    (entry.mouth, entry.eye, entry.burst) = (manikin.mouth, manikin.eye, manikin.burst)
                }
                return entry
            }
            var none = Option(id: "\(field)-none", value: "", text: t("noAnswer"))
            none.isNone = true
            none.checked = value == nil || value?.integer.map({ v in !options.contains { $0.value == v } }) ?? true
            list.append(none)
            return list
        }
        switch item.element {
        case .headline:
            values.isHeadline = true
        case .text:
            values.isText = true
        case .yesNo:
            values.isChoice = true
            values.options = radios([(0, t("yes")), (1, t("no"))])
        case .singleChoice(let options):
            values.isChoice = true
            values.options = radios(options.map { ($0.value, $0.text.text(in: language)) })
        case .multipleChoice(let options, _, _):
            values.isMultiple = true
            let selected: [Int]
            if case .choices(let list) = value { selected = list } else { selected = [] }
            values.options = options.enumerated().map { position, option in
                var entry = Option(id: "\(field)-\(position)", value: String(option.value), text: option.text.text(in: language))
                entry.name = PortalAnswerForm.optionField(index, position)
                entry.checked = selected.contains(option.value)
                return entry
            }
        case .scale(let min, let max, let minLabel, let maxLabel):
            values.isScale = true
            values.options = radios(max >= min ? (min...max).map { ($0, String($0)) } : [])
            values.minLabel = text(minLabel)
            values.maxLabel = text(maxLabel)
        case .samValence(let points), .samArousal(let points):
            let valence: Bool
            if case .samValence = item.element { valence = true } else { valence = false }
            values.isSAM = true
            values.minLabel = t(valence ? "sam.unpleasant" : "sam.calm")
            values.maxLabel = t(valence ? "sam.pleasant" : "sam.excited")
            let count = Swift.max(points, 2)
            values.options = radios((1...count).map { ($0, String($0)) }) { point in
                Self.manikin(point: point, of: count, valence: valence)
            }
        case .slider(let range):
            values.isSlider = true
            values.min = AnswerValue.number(range.min).description
            values.max = AnswerValue.number(range.max).description
            values.step = AnswerValue.number(range.step).description
            values.unit = range.unit
            values.decimalSeparator = PortalText.decimalSeparator(language)
            values.minLabel = text(range.minLabel)
            values.maxLabel = text(range.maxLabel)
            if let value {
                values.value = value.description
                values.valueText = value.number.map { range.text($0, in: Language(rawValue: language) ?? .english) } ?? value.description
            } else {
                values.valueText = t("notAnswered")
                values.untouched = true
            }
        case .freeText(let multiline, let maxLength):
            if multiline { values.isLongText = true } else { values.isShortText = true }
            values.maxLength = maxLength.map { String($0) }
            values.value = value?.description
        case .date:
            values.isDate = true
            values.value = value?.description
        case .unsupported(let type):
            values.isUnsupported = true
            values.unsupported = t("unsupported", ["type": type])
        }
        return values
    }

    /// The condition as the page's script reads it: the field of the item it depends on and
    /// the values that show this one.
    static func conditionJSON(field: String, _ values: [AnswerValue]) -> String {
        struct Condition: Encodable { var field: String; var values: [AnswerValue] }
        return (try? JSONCoding.string(Condition(field: field, values: values))) ?? ""
    }

    /// The Self-Assessment Manikin's face for one point (Bradley & Lang 1994), drawn by the
    /// template: the mouth turns from a frown to a smile along valence; along arousal the eyes
    /// open wider and a burst around the figure grows.
    static func manikin(point: Int, of points: Int, valence: Bool) -> Manikin {
        let share = Double(point - 1) / Double(Swift.max(points - 1, 1))
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        if valence {
            return Manikin(mouth: "M14 25 Q20 \(number(25 + (share - 0.5) * 12)) 26 25", eye: "1.8", burst: "0")
        }
        return Manikin(mouth: "M15 26 L25 26", eye: number(1.5 + share * 2), burst: share > 0 ? number(14 + share * 5.5) : "0")
    }

    /// One item as `questionnaire_item.mustache` shows it. Exactly one `is…` flag is set; what an
    /// element type does not have stays nil.
    struct Item: Sendable {
        var field: String
        var label: String
        var text: String?
        var required = false
        var hidden = false
        var problem: String?
        /// The condition as JSON for `/portal.js` (on a page that shows every item).
        var showIf: String?
        var isHeadline = false, isText = false, isChoice = false, isMultiple = false, isScale = false, isSAM = false
        var isSlider = false, isShortText = false, isLongText = false, isDate = false, isUnsupported = false
        var options: [Option]?
        var minLabel: String?
        var maxLabel: String?
        var min: String?
        var max: String?
        var step: String?
        var unit: String?
        var value: String?
        var valueText: String?
        /// The language's decimal separator, with which the page's script shows a slider's value as it moves.
        var decimalSeparator: String?
        /// A slider nobody moved yet: it shows "not answered", not a value.
        var untouched = false
        var maxLength: String?
        var unsupported: String?
    }

    /// A radio button or checkbox of an item: `name` for a checkbox (each has its own field),
    /// the manikin's drawing (``Manikin``, flat, as the template reads it) for a SAM point.
    struct Option: Sendable {
        var id: String
        var value: String
        var text: String
        var checked = false
        var isNone = false
        var name: String?
        var mouth: String?
        var eye: String?
        var burst: String?
    }

    /// The Self-Assessment Manikin's face for one point (SVG path and radii as text).
    struct Manikin: Sendable {
        var mouth: String
        var eye: String
        var burst: String
    }
}
