import Foundation

/// Where a study questionnaire stands for the person today (Track Your Stress thesis, FR10/FR11;
/// DESIGN "Study questionnaires"). Computed, never stored: it follows from the definition, the
/// study's activation, the schedule, the day and the person's sheets from every device.
public enum StudyQuestionnaireState: Sendable, Hashable {
    /// A one-time questionnaire not answered yet.
    case toDo
    /// A repeating questionnaire whose current period still asks for `remaining` answers.
    case due(remaining: Int)
    /// A repeating questionnaire answered as often as this period asks; due again from `next`
    /// (nil when the schedule ends before).
    case answered(next: LocalDate?)
    /// A repeating questionnaire whose schedule skips the current period (`every` > 1).
    case notDueUntil(LocalDate)
    /// A one-time questionnaire answered (here or on another device): never offered again.
    case done
    /// The study deactivated it: shown, not fillable.
    case deactivated
    /// Its schedule begins on that day.
    case notStarted(LocalDate)
    /// Its schedule ended on that day.
    case ended(LocalDate)
    /// A repeating questionnaire of a study whose one-time questionnaires are not all answered
    /// yet (they come first).
    case afterOneTime(pending: [String])

    /// The key word of the state, for `--json`.
    public var key: String {
        switch self {
        case .toDo: return "toDo"
        case .due: return "due"
        case .answered: return "answered"
        case .notDueUntil: return "notDueUntil"
        case .done: return "done"
        case .deactivated: return "deactivated"
        case .notStarted: return "notStarted"
        case .ended: return "ended"
        case .afterOneTime: return "afterOneTime"
        }
    }

    /// Whether `fill` without an id offers it.
    public var isOffered: Bool {
        switch self {
        case .toDo, .due: return true
        default: return false
        }
    }

    /// Whether the person may answer it now when naming it: repeating questionnaires may be
    /// answered again in a period already answered or skipped; the rest only when offered.
    public var isFillable: Bool {
        switch self {
        case .toDo, .due, .answered, .notDueUntil: return true
        case .done, .deactivated, .notStarted, .ended, .afterOneTime: return false
        }
    }

    /// One line saying the state in the current language.
    public func text(_ localizer: Localizer = CurrentLanguage.localizer) -> String {
        switch self {
        case .toDo: return localizer("studyq.state.toDo")
        case .done: return localizer("studyq.state.done")
        case .deactivated: return localizer("studyq.state.deactivated")
        case .due(let remaining): return localizer("studyq.state.due", ["count": "\(remaining)"])
        case .answered(let next):
            return next.map { localizer("studyq.state.answeredUntil", ["date": "\($0)"]) } ?? localizer("studyq.state.answered")
        case .notDueUntil(let date): return localizer("studyq.state.notDueUntil", ["date": "\(date)"])
        case .notStarted(let date): return localizer("studyq.state.notStarted", ["date": "\(date)"])
        case .ended(let date): return localizer("studyq.state.ended", ["date": "\(date)"])
        case .afterOneTime(let pending):
            return localizer("studyq.state.afterOneTime", ["ids": pending.joined(separator: ", ")])
        }
    }
}

/// A study questionnaire with its state and the person's answers to it.
public struct StudyQuestionnaireStatus: Sendable, Hashable {
    public var questionnaire: StudyQuestionnaire
    public var state: StudyQuestionnaireState
    /// Finished sheets, from every device.
    public var answers: Int
    /// When the newest of them was finished.
    public var lastAnswered: Date?
    /// Whether an unfinished draft is kept.
    public var hasDraft: Bool

    public var id: String { questionnaire.id }

    public init(questionnaire: StudyQuestionnaire, state: StudyQuestionnaireState, answers: Int = 0,
                lastAnswered: Date? = nil, hasDraft: Bool = false) {
        self.questionnaire = questionnaire
        self.state = state
        self.answers = answers
        self.lastAnswered = lastAnswered
        self.hasDraft = hasDraft
    }
}
