import Foundation
import UNITIProtocol

/// Where questionnaire definitions are kept, every version of each, for the study that owns it.
/// Part of every ``ServerStore``.
///
/// A stored version never changes (a changed definition needs a higher version), so answers
/// given to an older version can always be checked and read against it.
public protocol QuestionnaireStore: Sendable {
    /// Stores a new version; returns false when this exact version is already stored with the same
    /// content. Throws 422 `version_exists` for the same version with other content, and
    /// `questionnaire_owned` when another study owns the questionnaire.
    func addQuestionnaire(_ document: QuestionnaireDocument, now: Date) async throws -> Bool
    func questionnaire(id: String, version: Int) async throws -> QuestionnaireDocument?
    /// The study a questionnaire belongs to (every version belongs to the same one).
    func studyId(ofQuestionnaire id: String) async throws -> String?
    /// The newest version of every questionnaire of a study.
    func latestQuestionnaires(studyId: String) async throws -> [QuestionnaireDocument]
}
