import Foundation
import UNITICore
import UNITIProtocol

/// The values of one item of one questionnaire over time, from the person's sheets on every
/// device (thesis FR18): what `tys results` charts and compares.
struct StressSeries {
    let questionnaire: StudyQuestionnaire
    let item: QuestionnaireItem
    /// (finished at, value), oldest first.
    let values: [(Date, Double)]
    /// When the first of these sheets was started (where the comparison's period begins).
    let firstStarted: Date?

    /// Items that can be charted: a number on a range (sliders, scales, SAM, single choices).
    static func chartable(_ definition: QuestionnaireDefinition) -> [QuestionnaireItem] {
        definition.questions.filter { item in
            switch item.element {
            case .slider, .scale, .samValence, .samArousal, .singleChoice, .yesNo: return true
            default: return false
            }
        }
    }

    /// The series for `id` (or the first repeating questionnaire, else the first one) and
    /// `label` (or its first chartable item). One line names what exists when either is wrong.
    static func load(_ context: ModuleContext, id: String?, label: String?) throws -> StressSeries {
        let service = context.studyQuestionnaires
        let questionnaire: StudyQuestionnaire
        if let id {
            let found = try service.status(of: id).questionnaire  // an unknown id: one line naming those there are
            guard !chartable(found.definition).isEmpty else { throw UNITIError(L("tys.results.nothingToChart", ["id": id])) }
            questionnaire = found
        } else {
            let candidates = try service.questionnaires().filter { !chartable($0.definition).isEmpty }
            guard let first = candidates.first(where: \.isRepeating) ?? candidates.first else {
                throw UNITIError(L("studyq.error.none"))
            }
            questionnaire = first
        }
        let items = chartable(questionnaire.definition)
        let item: QuestionnaireItem
        if let label {
            guard let found = items.first(where: { $0.label == label }) else {
                throw UNITIError(L("tys.results.unknownLabel", [
                    "label": label, "id": questionnaire.id, "labels": items.map(\.label).joined(separator: ", "),
                ]))
            }
            item = found
        } else {
            item = items[0]
        }
        let read = try service.values(of: item.label, questionnaireID: questionnaire.id)
        return StressSeries(questionnaire: questionnaire, item: item, values: read.values, firstStarted: read.firstStarted)
    }

    var bounds: (min: Double, max: Double) { item.element.numericBounds ?? (0, 100) }

    var ownMean: Double? {
        values.isEmpty ? nil : values.map(\.1).reduce(0, +) / Double(values.count)
    }
}
