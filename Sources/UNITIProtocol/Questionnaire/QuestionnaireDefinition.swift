import Foundation

/// One questionnaire of any module, in the single JSON format that client and server share.
///
/// Every module ships its questionnaires in this shape and the study server serves the same
/// shape, so one engine renders them all and one validator checks them. A definition is
/// versioned: answer sheets name the `id` and `version` they answer, so a changed definition
/// never reinterprets old answers. The field set is the union of the five theses: kind and
/// schedule from the Track Your Stress thesis (5.3.3), one-item-at-a-time presentation from
/// Track Your Hearing, yes = 0 / no = 1 from Track Your Tinnitus, scores with grade bands from
/// Tinnitus Navigator. It maps onto a FHIR R4 `Questionnaire` (`label` → `linkId`,
/// `showIf` → `enableWhen`).
///
/// Decode with `QuestionnaireDefinition.load(from:)` (one clear error with a position for
/// malformed JSON), then check with `QuestionnaireValidator` (every problem at once).
public struct QuestionnaireDefinition: Codable, Hashable, Sendable {
    /// Stable identifier (`tyt-momentary`, `mini-distress`); lower-case letters, digits, `-`, `_`, `.`.
    public var id: String
    /// Integer version, at least 1; raised whenever items, values or scoring change.
    public var version: Int
    public var title: LocalizedText
    public var intro: LocalizedText?
    public var outro: LocalizedText?
    public var kind: QuestionnaireKind
    /// When a repeating (or a dated one-time) questionnaire is due.
    public var schedule: QuestionnaireSchedule?
    /// Whether the participant may change the reminders of the schedule (Track Your Stress
    /// thesis, `scheduleChangeable`): standard or custom times, the weekday planner. Absent means
    /// no: the study's schedule applies as it is.
    public var scheduleChangeable: Bool
    public var presentation: QuestionnairePresentation
    /// Readings to capture while the person answers.
    public var sensors: [QuestionnaireSensor]
    public var items: [QuestionnaireItem]
    public var scoring: QuestionnaireScoring?
    /// How long after a prompt is delivered an answer begun counts as in time (minutes, 1 to
    /// 1440); absent means ``PromptTiming/defaultCompletionWindowMinutes``. After it the prompt
    /// expires.
    public var completionWindowMinutes: Int?
    /// How many minutes after the completion window a sheet begun still answers the prompt, as a
    /// late answer (``AnswerSheet/late``; 0 to 1440); absent means 0: a sheet begun after the
    /// window answers no prompt, it is the participant's own (``AnswerSheet/initiatedBy``) and
    /// the prompt stays missed.
    public var lateAnswerMinutes: Int?
    /// What the person is told at once after saving (``AfterSaving``); absent: nothing more.
    public var afterSaving: AfterSaving?
    /// The languages the texts are written in, the first the one a reader of another language
    /// reads (then English); absent: English is the fallback. The server gives a study's
    /// questionnaires the study's declared languages when they declare none (``StudyLanguages``).
    public var languages: [String]?

    /// The language a text missing in the reader's language falls back to before English.
    public var fallbackLanguage: String? { languages?.first }

    public init(id: String, version: Int, title: LocalizedText, intro: LocalizedText? = nil,
                outro: LocalizedText? = nil, kind: QuestionnaireKind = .oneTime,
                schedule: QuestionnaireSchedule? = nil, scheduleChangeable: Bool = false, presentation: QuestionnairePresentation = .allOnOnePage,
                sensors: [QuestionnaireSensor] = [], items: [QuestionnaireItem],
                scoring: QuestionnaireScoring? = nil) {
        self.id = id
        self.version = version
        self.title = title
        self.intro = intro
        self.outro = outro
        self.kind = kind
        self.schedule = schedule
        self.scheduleChangeable = scheduleChangeable
        self.presentation = presentation
        self.sensors = sensors
        self.items = items
        self.scoring = scoring
        self.completionWindowMinutes = nil
        self.lateAnswerMinutes = nil
        self.afterSaving = nil
        self.languages = nil
    }

    enum CodingKeys: String, CodingKey {
        case id, version, title, intro, outro, kind, schedule, scheduleChangeable, presentation, sensors, items, scoring
        case completionWindowMinutes, lateAnswerMinutes, afterSaving, languages
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        version = try c.decode(Int.self, forKey: .version)
        title = try c.decode(LocalizedText.self, forKey: .title)
        intro = try c.decodeIfPresent(LocalizedText.self, forKey: .intro)
        outro = try c.decodeIfPresent(LocalizedText.self, forKey: .outro)
        kind = try c.decodeIfPresent(QuestionnaireKind.self, forKey: .kind) ?? .oneTime
        schedule = try c.decodeIfPresent(QuestionnaireSchedule.self, forKey: .schedule)
        scheduleChangeable = try c.decodeIfPresent(Bool.self, forKey: .scheduleChangeable) ?? false
        presentation = try c.decodeIfPresent(QuestionnairePresentation.self, forKey: .presentation) ?? .allOnOnePage
        sensors = try c.decodeIfPresent([QuestionnaireSensor].self, forKey: .sensors) ?? []
        items = try c.decode([QuestionnaireItem].self, forKey: .items)
        scoring = try c.decodeIfPresent(QuestionnaireScoring.self, forKey: .scoring)
        completionWindowMinutes = try c.decodeIfPresent(Int.self, forKey: .completionWindowMinutes)
        lateAnswerMinutes = try c.decodeIfPresent(Int.self, forKey: .lateAnswerMinutes)
        afterSaving = try c.decodeIfPresent(AfterSaving.self, forKey: .afterSaving)
        languages = try c.decodeIfPresent([String].self, forKey: .languages)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(version, forKey: .version)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(intro, forKey: .intro)
        try c.encodeIfPresent(outro, forKey: .outro)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(schedule, forKey: .schedule)
        if scheduleChangeable { try c.encode(true, forKey: .scheduleChangeable) }
        try c.encode(presentation, forKey: .presentation)
        if !sensors.isEmpty { try c.encode(sensors, forKey: .sensors) }
        try c.encode(items, forKey: .items)
        try c.encodeIfPresent(scoring, forKey: .scoring)
        try c.encodeIfPresent(completionWindowMinutes, forKey: .completionWindowMinutes)
        try c.encodeIfPresent(lateAnswerMinutes, forKey: .lateAnswerMinutes)
        try c.encodeIfPresent(afterSaving, forKey: .afterSaving)
        try c.encodeIfPresent(languages, forKey: .languages)
    }

    /// The completion window in seconds (the definition's, or the default).
    public var completionWindow: TimeInterval {
        TimeInterval(completionWindowMinutes ?? PromptTiming.defaultCompletionWindowMinutes) * 60
    }

    /// How long after the completion window a sheet begun is still a late answer, in seconds.
    public var lateAnswerAllowance: TimeInterval {
        TimeInterval(lateAnswerMinutes ?? 0) * 60
    }

    /// The item with `label`, if any.
    public func item(labeled label: String) -> QuestionnaireItem? {
        items.first { $0.label == label }
    }

    /// Items a person answers (not headlines or display text).
    public var questions: [QuestionnaireItem] {
        items.filter { $0.element.isQuestion }
    }
}

/// Whether a questionnaire is answered once (a baseline) or again and again (a diary).
public enum QuestionnaireKind: String, Codable, Hashable, Sendable, CaseIterable {
    case oneTime
    case repeating
}

/// How the items appear: all together, or one at a time with progress ("3/9") and no way back,
/// as Track Your Hearing asks its momentary questions.
public enum QuestionnairePresentation: String, Codable, Hashable, Sendable, CaseIterable {
    case allOnOnePage
    case oneAtATime
}

/// A reading taken while the person answers (Track Your Stress thesis, "CanUse" table).
/// A string value, so a sensor this version does not know is reported by the validator
/// instead of making the definition unreadable.
public struct QuestionnaireSensor: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Ambient sound level in dBFS.
    public static let microphoneLevel = QuestionnaireSensor(rawValue: "microphoneLevel")
    /// Latitude, longitude and accuracy.
    public static let location = QuestionnaireSensor(rawValue: "location")

    public static let known: [QuestionnaireSensor] = [.microphoneLevel, .location]

    public init(from decoder: Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
