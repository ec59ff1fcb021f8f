/// A study shipped with the program (`Configurations/Resources/Studies/<id>.json`), so that a
/// newcomer sees study questionnaires work offline, before any server or account: the default
/// study names it in `bundledStudies`.
///
/// It lists its questionnaires (bundled definitions, `Configurations/Resources/Questionnaires/
/// <id>.json`) in the order they are offered, each with the module that presents it, exactly
/// like an ``AssignedQuestionnaire`` the server sends.
public struct BundledStudy: Codable, Hashable, Sendable {
    public struct Entry: Codable, Hashable, Sendable {
        public var id: String
        public var module: String
        /// False lists the questionnaire as deactivated (shown, not fillable). Default true.
        public var active: Bool
        /// Asks a questionnaire that is one-time by its definition again and again, on this
        /// schedule, in this study (the shared distress questionnaire is a one-time baseline for
        /// the shell, and a monthly measure for the health record). Nil keeps the definition's
        /// own kind and schedule.
        public var repeating: QuestionnaireSchedule?

        public init(id: String, module: String, active: Bool = true, repeating: QuestionnaireSchedule? = nil) {
            self.id = id
            self.module = module
            self.active = active
            self.repeating = repeating
        }

        enum CodingKeys: String, CodingKey { case id, module, active, repeating }

        /// The definition as this study asks it: repeating on ``repeating`` when that is set.
        public func applied(to definition: QuestionnaireDefinition) -> QuestionnaireDefinition {
            guard let repeating else { return definition }
            var definition = definition
            definition.kind = .repeating
            definition.schedule = repeating
            return definition
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            module = try c.decode(String.self, forKey: .module)
            active = try c.decodeIfPresent(Bool.self, forKey: .active) ?? true
            repeating = try c.decodeIfPresent(QuestionnaireSchedule.self, forKey: .repeating)
        }
    }

    public var id: String
    public var title: LocalizedText
    public var description: LocalizedText?
    public var questionnaires: [Entry]

    public init(id: String, title: LocalizedText, description: LocalizedText? = nil, questionnaires: [Entry]) {
        self.id = id
        self.title = title
        self.description = description
        self.questionnaires = questionnaires
    }
}
