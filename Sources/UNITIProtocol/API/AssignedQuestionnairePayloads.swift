/// Payloads of `GET /api/v1/questionnaires`: the questionnaires of every study the caller has
/// joined, each with the module that presents it and whether the study still lets it be answered.
///
/// This is the one list a device keeps its study questionnaires from (the core's
/// `StudyQuestionnaires` service): served with one ETag for the whole list, so an unchanged list
/// costs a 304, and an empty list (no joined study, or a study without questionnaires) is a real
/// answer the device stores, not a reason to keep stale questionnaires.

/// One questionnaire of a joined study, newest version.
///
/// `definition` is the questionnaire in the core format, carried as plain JSON so that a device
/// decodes and validates each questionnaire on its own: one it cannot read is refused by itself
/// and the rest of the list (and the device's previous version of that one) stays usable.
public struct AssignedQuestionnaire: Codable, Hashable, Sendable {
    /// The questionnaire's id and newest version (the same as inside `definition`).
    public var id: String
    public var version: Int
    public var studyId: String
    /// The module that presents it (`tys`, `tyh`, `tn`, or the module that bundles the id).
    public var module: String
    /// False once the coordinator deactivated it: shown, not fillable, sheets not accepted.
    public var active: Bool
    /// When the caller joined the study (ISO 8601 with offset); a schedule's `startOnDay` counts
    /// from this day.
    public var joinedAt: String
    public var definition: JSONValue

    public init(id: String, version: Int, studyId: String, module: String, active: Bool, joinedAt: String,
                definition: JSONValue) {
        self.id = id
        self.version = version
        self.studyId = studyId
        self.module = module
        self.active = active
        self.joinedAt = joinedAt
        self.definition = definition
    }
}

/// `GET /api/v1/questionnaires`: ordered by study (in the order the caller joined them), then by
/// the order the coordinator imported the questionnaires.
public struct AssignedQuestionnaireList: Codable, Hashable, Sendable {
    public var questionnaires: [AssignedQuestionnaire]
    public init(questionnaires: [AssignedQuestionnaire]) { self.questionnaires = questionnaires }
}
