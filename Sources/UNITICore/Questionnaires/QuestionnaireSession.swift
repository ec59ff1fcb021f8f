import Foundation
import UNITIProtocol

/// The state of one person answering one questionnaire, independent of how it is shown.
///
/// Both front ends (the line protocol and the terminal widgets) drive the same session: they
/// ask for `currentItem`, hand in a value, and move on. The session refuses a value that breaks
/// its item's rules (nothing invalid is ever recorded), forgets answers to items that a changed
/// earlier answer hides, and produces an answer sheet only when the whole sheet is valid.
/// A session can be saved as a draft after every answer and resumed from it.
public final class QuestionnaireSession {
    public let definition: QuestionnaireDefinition
    public let sheetID: UUID
    public let startedAt: OffsetTimestamp
    /// Language the questions are shown in.
    public let language: String
    public private(set) var answers: [String: Answer]
    /// Questions the person has passed, answered or deliberately left empty.
    public private(set) var visited: Set<String>
    /// Readings taken while answering (set by the engine).
    public var sensors: SensorReadings?
    private let clock: any WallClock

    public init(definition: QuestionnaireDefinition, clock: any WallClock, language: String, id: UUID = UUID()) {
        self.definition = definition
        self.clock = clock
        self.language = language
        self.sheetID = id
        self.startedAt = OffsetTimestamp(clock.now, in: clock.timeZone)
        self.answers = [:]
        self.visited = []
    }

    /// Continues a draft. Answers that no longer fit the definition are dropped.
    public init(resuming draft: QuestionnaireDraft, definition: QuestionnaireDefinition, clock: any WallClock) {
        self.definition = definition
        self.clock = clock
        self.language = draft.sheet.language ?? "en"
        self.sheetID = draft.sheet.id
        self.startedAt = draft.sheet.startedAt
        self.answers = draft.sheet.answers.filter { label, answer in
            guard let item = definition.item(labeled: label) else { return false }
            return AnswerSheetValidator.check(answer.value, for: item) == nil
        }
        self.visited = Set(draft.visited).filter { definition.item(labeled: $0) != nil }
        self.sensors = draft.sheet.sensors
        pruneHidden()
    }

    /// Plain values, label → value.
    public var values: [String: AnswerValue] { answers.mapValues(\.value) }

    /// Items shown with the answers so far.
    public var visibleItems: [QuestionnaireItem] { definition.visibleItems(given: values) }

    /// Shown items that take an answer.
    public var visibleQuestions: [QuestionnaireItem] { visibleItems.filter { $0.element.isQuestion } }

    /// The next shown question not yet passed; nil when every shown question has been passed.
    public var currentItem: QuestionnaireItem? {
        visibleQuestions.first { !visited.contains($0.label) }
    }

    /// Progress as "position of the current question / shown questions" ("3/9"); the total can
    /// change when a condition shows or hides items.
    public var progress: (position: Int, total: Int) {
        let questions = visibleQuestions
        let passed = questions.filter { visited.contains($0.label) }.count
        return (min(passed + 1, max(questions.count, 1)), questions.count)
    }

    /// Why `value` is not accepted for the item, in English (nil when it is accepted).
    public func rejection(of value: AnswerValue, for item: QuestionnaireItem) -> String? {
        AnswerSheetValidator.check(value, for: item)?.message
    }

    /// Records an answer when it is valid for its item; otherwise records nothing and throws.
    public func answer(_ value: AnswerValue, for label: String) throws {
        guard let item = definition.item(labeled: label), item.element.isQuestion else {
            throw UNITIError(L("questionnaire.error.noSuchItem", ["label": label]))
        }
        guard definition.visibleLabels(given: values).contains(label) else {
            throw UNITIError(L("questionnaire.error.hiddenItem", ["label": label]))
        }
        if let reason = rejection(of: value, for: item) {
            throw UNITIError(L("questionnaire.error.rejected", ["label": label, "reason": reason]))
        }
        answers[label] = Answer(value: value, answeredAt: OffsetTimestamp(clock.now, in: clock.timeZone))
        visited.insert(label)
        pruneHidden()
    }

    /// Leaves an optional item empty (or resets a single choice to unanswered). Refused for a
    /// required item.
    public func leaveEmpty(_ label: String) throws {
        guard let item = definition.item(labeled: label) else {
            throw UNITIError(L("questionnaire.error.noSuchItem", ["label": label]))
        }
        if item.required {
            throw UNITIError(L("questionnaire.error.required", ["label": label]))
        }
        answers[label] = nil
        visited.insert(label)
        pruneHidden()
    }

    /// Marks an item the front end cannot ask (an unsupported type) as passed.
    public func pass(_ label: String) {
        visited.insert(label)
    }

    /// Drops answers to items that the current answers hide, and forgets that they were passed:
    /// an item shown again by a later change (on a page, where earlier answers can change) is
    /// asked again instead of standing empty as if left so on purpose.
    private func pruneHidden() {
        let visible = definition.visibleLabels(given: values)
        visited.formIntersection(visible)
        let hidden = answers.keys.filter { !visible.contains($0) }
        guard !hidden.isEmpty else { return }
        for label in hidden { answers[label] = nil }
        // Hiding can cascade (a hidden item's answer showed another item).
        pruneHidden()
    }

    /// Everything that keeps the sheet from being submitted.
    public var submissionProblems: [ValidationProblem] {
        AnswerSheetValidator.validate(answers: values, isPartial: false, against: definition)
    }

    /// The finished sheet; throws, naming each problem, when it is not valid yet.
    public func finish(clientVersion: String) throws -> AnswerSheet {
        let problems = submissionProblems
        guard problems.isEmpty else {
            throw UNITIError(L("questionnaire.error.cannotSubmit", [
                "problems": problems.map(\.description).joined(separator: "; "),
            ]))
        }
        var sheet = partialSheet(clientVersion: clientVersion)
        sheet.isPartial = false
        sheet.endedAt = OffsetTimestamp(clock.now, in: clock.timeZone)
        return sheet
    }

    /// The answers so far as a partial sheet (for drafts, and for modules that sync partial answers).
    public func partialSheet(clientVersion: String) -> AnswerSheet {
        AnswerSheet(id: sheetID, questionnaireID: definition.id, questionnaireVersion: definition.version,
                    answers: answers, startedAt: startedAt, endedAt: nil, clientVersion: clientVersion,
                    sensors: sensors, isPartial: true, language: language)
    }

    /// The session as a draft that can be stored and resumed.
    public func draft(clientVersion: String) -> QuestionnaireDraft {
        QuestionnaireDraft(sheet: partialSheet(clientVersion: clientVersion), visited: visited.sorted())
    }

    /// Scores of the answers so far.
    public var scores: [ScoreResult] {
        QuestionnaireScorer.scores(for: definition, answers: values)
    }
}
