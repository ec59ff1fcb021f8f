import Foundation
import UNITIProtocol

/// A questionnaire's items as the templates show them: one dictionary per item with a flag for
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
    func items(_ indexes: [Int], conditions: Bool) -> [[String: Any]] {
        let visible = definition.visibleLabels(given: shown)
        return indexes.map { item(at: $0, visible: visible.contains(definition.items[$0].label), conditions: conditions) }
    }

    private func text(_ text: LocalizedText?) -> String? {
        text.map { $0.text(in: language) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private func t(_ key: String, _ values: [String: String] = [:]) -> String {
        PortalText.text("portal.questionnaire.\(key)", language, values)
    }

    private func item(at index: Int, visible: Bool, conditions: Bool) -> [String: Any] {
        let item = definition.items[index]
        let field = PortalAnswerForm.field(index)
        var values: [String: Any] = ["field": field, "label": item.label]
        if let text = text(item.text) { values["text"] = text }
        if item.required, item.element.isQuestion { values["required"] = true }
        if !visible { values["hidden"] = true }
        if let problem = problems[item.label] { values["problem"] = problem.message(language) }
        if conditions, let condition = item.showIf, let parent = definition.items.firstIndex(where: { $0.label == condition.label }) {
            values["showIf"] = Self.conditionJSON(field: PortalAnswerForm.field(parent), condition.values)
        }
        let value = shown[item.label]
        // Radio groups: the options, one checked, and a "no answer" choice that resets the item.
        func radios(_ options: [(value: Int, text: String)], pictogram: ((Int) -> [String: Any])? = nil) -> [[String: Any]] {
            var list: [[String: Any]] = options.enumerated().map { position, option in
                var entry: [String: Any] = ["id": "\(field)-\(position)", "value": String(option.value), "text": option.text]
                if value?.integer == option.value { entry["checked"] = true }
                if let pictogram { entry.merge(pictogram(option.value)) { $1 } }
                return entry
            }
            var none: [String: Any] = ["id": "\(field)-none", "value": "", "text": t("noAnswer"), "isNone": true]
            if value == nil || value?.integer.map({ v in !options.contains { $0.value == v } }) ?? true { none["checked"] = true }
            list.append(none)
            return list
        }
        switch item.element {
        case .headline:
            values["isHeadline"] = true
        case .text:
            values["isText"] = true
        case .yesNo:
            values["isChoice"] = true
            values["options"] = radios([(0, t("yes")), (1, t("no"))])
        case .singleChoice(let options):
            values["isChoice"] = true
            values["options"] = radios(options.map { ($0.value, $0.text.text(in: language)) })
        case .multipleChoice(let options, _, _):
            values["isMultiple"] = true
            let selected: [Int]
            if case .choices(let list) = value { selected = list } else { selected = [] }
            values["options"] = options.enumerated().map { position, option -> [String: Any] in
                var entry: [String: Any] = ["id": "\(field)-\(position)", "name": PortalAnswerForm.optionField(index, position),
                                            "value": String(option.value), "text": option.text.text(in: language)]
                if selected.contains(option.value) { entry["checked"] = true }
                return entry
            }
        case .scale(let min, let max, let minLabel, let maxLabel):
            values["isScale"] = true
            values["options"] = radios(max >= min ? (min...max).map { ($0, String($0)) } : [])
            if let label = text(minLabel) { values["minLabel"] = label }
            if let label = text(maxLabel) { values["maxLabel"] = label }
        case .samValence(let points), .samArousal(let points):
            let valence: Bool
            if case .samValence = item.element { valence = true } else { valence = false }
            values["isSAM"] = true
            values["minLabel"] = t(valence ? "sam.unpleasant" : "sam.calm")
            values["maxLabel"] = t(valence ? "sam.pleasant" : "sam.excited")
            let count = Swift.max(points, 2)
            values["options"] = radios((1...count).map { ($0, String($0)) }) { point in
                Self.manikin(point: point, of: count, valence: valence)
            }
        case .slider(let range):
            values["isSlider"] = true
            values["min"] = AnswerValue.number(range.min).description
            values["max"] = AnswerValue.number(range.max).description
            values["step"] = AnswerValue.number(range.step).description
            if let unit = range.unit { values["unit"] = unit }
            if let label = text(range.minLabel) { values["minLabel"] = label }
            if let label = text(range.maxLabel) { values["maxLabel"] = label }
            if let value {
                values["value"] = value.description
                values["valueText"] = value.number.map(range.text) ?? value.description
            } else {
                values["valueText"] = t("notAnswered")
                values["untouched"] = true
            }
        case .freeText(let multiline, let maxLength):
            values[multiline ? "isLongText" : "isShortText"] = true
            if let maxLength { values["maxLength"] = String(maxLength) }
            if let value { values["value"] = value.description }
        case .date:
            values["isDate"] = true
            if let value { values["value"] = value.description }
        case .unsupported(let type):
            values["isUnsupported"] = true
            values["unsupported"] = t("unsupported", ["type": type])
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
    static func manikin(point: Int, of points: Int, valence: Bool) -> [String: Any] {
        let share = Double(point - 1) / Double(Swift.max(points - 1, 1))
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        if valence {
            return ["mouth": "M14 25 Q20 \(number(25 + (share - 0.5) * 12)) 26 25", "eye": "1.8", "burst": "0"]
        }
        return ["mouth": "M15 26 L25 26", "eye": number(1.5 + share * 2), "burst": share > 0 ? number(14 + share * 5.5) : "0"]
    }
}
