import Foundation
import UNITIProtocol

/// Where questionnaire definitions are kept, every version of each, for the study that owns it,
/// and how each questionnaire is offered: the module that presents it and whether it is active.
/// Part of every ``ServerStore``.
///
/// A stored version never changes (a changed definition needs a higher version), so answers
/// given to an older version can always be checked and read against it. The link to a module and
/// the deactivation belong to the questionnaire id, all versions alike.
public protocol QuestionnaireStore: Sendable {
    /// Stores a new version, in the same transaction as the questionnaire's link: `module` sets
    /// it; nil keeps the link a questionnaire has, and gives a new one its default
    /// (``QuestionnaireModules/defaultModule(for:bundledIds:)``). An unchanged version is not
    /// stored again, but a given module still changes the link. Throws 422 `version_exists` for
    /// the same version with other content, and `questionnaire_owned` when another study owns the
    /// questionnaire.
    func addQuestionnaire(_ document: QuestionnaireDocument, module: ModuleID?, now: Date) async throws -> QuestionnaireImportResult
    func questionnaire(id: String, version: Int) async throws -> QuestionnaireDocument?
    /// The study a questionnaire belongs to (every version belongs to the same one).
    func studyId(ofQuestionnaire id: String) async throws -> String?
    /// The newest version of every questionnaire of a study.
    func latestQuestionnaires(studyId: String) async throws -> [QuestionnaireDocument]
    /// How a questionnaire is offered; nil for an id never imported.
    func questionnaireLink(id: String) async throws -> QuestionnaireLink?
    /// The links of a study's questionnaires, in the order they were first imported.
    func questionnaireLinks(studyId: String) async throws -> [QuestionnaireLink]
    /// Deactivates a questionnaire of the study (a second deactivation keeps the first time) or
    /// activates it again; returns the link as it is now, nil when the study has no such questionnaire.
    func setQuestionnaireActive(id: String, studyId: String, active: Bool, now: Date) async throws -> QuestionnaireLink?
    /// The newest version of every questionnaire of every study the user is a member of: studies
    /// in the order the user joined them, each study's questionnaires in the order first imported.
    func memberQuestionnaires(userId: Int64) async throws -> [MemberQuestionnaire]
}

/// How a questionnaire (every version of it) is offered to the participants of its study.
public struct QuestionnaireLink: Sendable, Hashable, Codable {
    public var questionnaireId: String
    public var studyId: String
    /// The module that presents it on the devices.
    public var module: ModuleID
    /// When the coordinator deactivated it; nil while it is active. Sheets started from then on
    /// are refused, sheets started before (answered offline, sent later) are still accepted.
    public var deactivatedAt: Date?

    public var isActive: Bool { deactivatedAt == nil }

    /// Whether a sheet started at `startedAt` may still be stored.
    public func accepts(sheetStartedAt startedAt: Date) -> Bool {
        deactivatedAt.map { startedAt < $0 } ?? true
    }
}

/// What an import did.
public struct QuestionnaireImportResult: Sendable, Hashable {
    /// False when this exact version was stored already.
    public var versionAdded: Bool
    /// The module that presents the questionnaire now.
    public var module: ModuleID
    /// The module before this import; nil for a questionnaire imported for the first time.
    public var previousModule: ModuleID?
}

/// One questionnaire of a study the user is a member of, as ``QuestionnaireStore/memberQuestionnaires(userId:)`` gives it.
public struct MemberQuestionnaire: Sendable, Hashable {
    public var link: QuestionnaireLink
    /// The newest version and its definition in the core format, as stored.
    public var version: Int
    public var definition: JSONValue
    /// When the user became a member of the study.
    public var joinedAt: Date
}
