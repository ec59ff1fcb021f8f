import Foundation
import UNITICore
import UNITIProtocol

/// The baseline questionnaires answered once after the first login (thesis FR8, FR9).
///
/// Standalone: the module's own three (case history, worst symptom, short distress scale),
/// owned by `tyt`. Integrated: the shell's shared baseline (``Baseline/shared(_:)``), which asks
/// the worst symptom as part of its case history, so no module asks it twice.
enum BaselineQuestionnaires {
    static let standaloneIDs = ["tyt-case-history", WorstSymptom.questionnaireID, "tyt-distress-short"]

    static func baseline(_ context: ModuleContext) throws -> Baseline {
        context.program == .integrated ? try Baseline.shared(context.services) : standalone
    }

    static let standalone = Baseline(owner: .tyt, questionnaireIDs: standaloneIDs)
}
