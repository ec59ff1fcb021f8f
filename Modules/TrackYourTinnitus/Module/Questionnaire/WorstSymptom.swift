import Foundation
import UNITICore
import TrackYourTinnitusShared
import UNITIProtocol

/// The symptom a person names as the worst in the baseline (thesis FR9). Item 8 of the momentary
/// questionnaire asks about it by name; before a choice (or with "none of these") the item
/// names a neutral phrase instead.
public enum WorstSymptom: Int, CaseIterable, Sendable {
    case fallingAsleep = 0, feelingLow, relaxing, worries, following, concentrating, irritability, soundSensitivity, none

    /// The baseline questionnaire that asks for it, and the item's label.
    public static let questionnaireID = "tyt-worst-symptom"
    public static let itemLabel = WorstSymptomText.itemLabel

    /// The phrase inserted for `{worstSymptom}` in item 8.
    public func phrase(in language: String) -> String {
        Localizer(language: Language(code: language) ?? .english)(WorstSymptomText.phraseKey(rawValue))
    }

    /// The latest choice stored in a finished baseline sheet, nil before one: the module's own
    /// worst-symptom questionnaire (standalone) or any questionnaire of the shell's shared
    /// baseline that asks it (integrated), whichever was answered last.
    public static func chosen(_ services: CoreServices) throws -> WorstSymptom? {
        let sheets = AnswerSheetStore(database: services.database, clock: services.clock)
        let shared = try Baseline.shared(services)
        var candidates = try sheets.sheets(owner: BaselineQuestionnaires.standalone.owner, questionnaireID: questionnaireID)
        for id in shared.questionnaireIDs {
            candidates += try sheets.sheets(owner: shared.owner, questionnaireID: id)
        }
        let latest = candidates.filter { !$0.isPartial && $0.values[itemLabel] != nil }
            .max { ($0.endedAt?.date ?? $0.startedAt.date) < ($1.endedAt?.date ?? $1.startedAt.date) }
        guard let value = latest?.values[itemLabel] else { return nil }
        if case .choices(let picked) = value, let first = picked.first { return WorstSymptom(rawValue: first) }
        return value.integer.flatMap(WorstSymptom.init(rawValue:))
    }
}
