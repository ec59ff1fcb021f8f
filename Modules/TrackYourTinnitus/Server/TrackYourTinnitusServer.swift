import Foundation
import TrackYourTinnitusShared
import UNITIProtocol
import UNITIServer
import UNITIText

/// Track Your Tinnitus on the study server: the portal's momentary questionnaire names the
/// person's worst symptom in item 8 as the shell does (``WorstSymptomText``), from their newest
/// finished answer to the worst-symptom question of a baseline (``WorstSymptomText/askedIn``),
/// in each language of the item.
package struct TrackYourTinnitusServerPart: QuestionnairePersonalizing {
    package init() {}

    package var id: ModuleID { .tyt }

    package func personalized(_ definition: QuestionnaireDefinition, userId: Int64, store: ServerStore) async throws -> QuestionnaireDefinition {
        guard definition.items.contains(where: { $0.text?.values.values.contains { $0.contains(WorstSymptomText.placeholder) } ?? false }) else {
            return definition
        }
        var newest: (number: Double?, value: String, endedAt: Date)?
        for questionnaire in WorstSymptomText.askedIn {
            if let answer = try await store.newestAnswer(userId: userId, questionnaire: questionnaire, item: WorstSymptomText.itemLabel),
               answer.endedAt > newest?.endedAt ?? .distantPast { newest = answer }
        }
        let chosen = newest.flatMap { Self.value(($0.number, $0.value)) }
        let key = WorstSymptomText.phraseKey(chosen)
        return WorstSymptomText.personalized(definition) { language in
            Localizer(language: Language(code: language) ?? .english)(key)
        }
    }

    /// The chosen symptom's value: the number of a single choice, or the first of several.
    static func value(_ answer: (number: Double?, value: String)) -> Int? {
        if let number = answer.number { return Int(number) }
        return (try? JSONDecoder().decode([Int].self, from: Data(answer.value.utf8)))?.first
    }
}
