import Foundation
import UNITICore
import UNITIProtocol

/// The baseline questionnaires answered once after the first login (thesis FR8, FR9).
///
/// Standalone: the module's own three (case history, worst symptom, short distress scale). The
/// integrated build would use the host's shared baseline, which does not exist yet; until it
/// does, it asks the worst-symptom questionnaire only, because item 8 of the check-in needs it.
enum BaselineQuestionnaires {
    static let standaloneIDs = ["tyt-case-history", WorstSymptom.questionnaireID, "tyt-distress-short"]
    static let integratedIDs = [WorstSymptom.questionnaireID]

    static var ids: [String] { TinnitusBuild.isIntegrated ? integratedIDs : standaloneIDs }
}
