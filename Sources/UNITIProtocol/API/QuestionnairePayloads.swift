/// Payloads of the questionnaire routes. Definitions travel in the core questionnaire format.

/// One version of a questionnaire definition as the server stores it.
public struct QuestionnaireDocument: Codable, Hashable, Sendable {
    public var id: String
    public var version: Int
    public var studyId: String
    public var definition: QuestionnaireDefinition

    public init(id: String, version: Int, studyId: String, definition: QuestionnaireDefinition) {
        self.id = id
        self.version = version
        self.studyId = studyId
        self.definition = definition
    }
}

/// `GET /api/v1/studies/{id}/questionnaires`: the newest version of each questionnaire of a study.
/// Served with an ETag; send it back in `If-None-Match` to get 304 when nothing changed.
public struct QuestionnaireList: Codable, Hashable, Sendable {
    public var questionnaires: [QuestionnaireDocument]
    public init(questionnaires: [QuestionnaireDocument]) { self.questionnaires = questionnaires }
}
