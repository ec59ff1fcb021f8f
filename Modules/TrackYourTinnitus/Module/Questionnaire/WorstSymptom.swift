import Foundation
import UNITICore
import UNITIProtocol

/// The symptom a person names as the worst in the baseline (thesis FR9). Item 8 of the momentary
/// questionnaire asks about it by name; before a choice (or with "none of these") the item
/// names a neutral phrase instead.
public enum WorstSymptom: Int, CaseIterable, Sendable {
    case fallingAsleep = 0, feelingLow, relaxing, worries, following, concentrating, irritability, soundSensitivity, none

    /// The baseline questionnaire that asks for it, and the item's label.
    public static let questionnaireID = "tyt-worst-symptom"
    public static let itemLabel = "worst-symptom"

    /// The phrase inserted for `{worstSymptom}` in item 8.
    public func phrase(in language: String) -> String {
        let key = self == .none ? "tyt.symptom.phrase.neutral" : "tyt.symptom.phrase.\(self)"
        return Localizer(language: Language(code: language) ?? .english)(key)
    }

    /// The latest choice stored in the baseline sheets, nil before one.
    public static func chosen(in sheets: AnswerSheetStore, owner: String) throws -> WorstSymptom? {
        let latest = try sheets.sheets(owner: owner, questionnaireID: questionnaireID).last { !$0.isPartial }
        guard case .choices(let picked)? = latest?.values[itemLabel], let first = picked.first else {
            if let number = latest?.values[itemLabel]?.integer { return WorstSymptom(rawValue: number) }
            return nil
        }
        return WorstSymptom(rawValue: first)
    }
}
