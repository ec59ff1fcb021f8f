import Foundation
import GRDB
import UNITIProtocol

/// Runs a questionnaire for a person, for any module: refuses an invalid definition, offers to
/// resume an unfinished draft, picks the front end (widgets on a terminal, the line protocol
/// otherwise), keeps the draft after every answer, reads the sensors the definition asks for
/// while the person answers (``QuestionnaireSensors``), and returns the finished sheet with its
/// scores and readings. Where the sheet is stored is the caller's choice (`AnswerSheetStore` is
/// there for modules that need nothing special).
public final class QuestionnaireEngine {
    public let services: CoreServices
    /// Keys for the widgets; nil uses the terminal when the input is interactive.
    public let keys: (any KeyInput)?
    /// The sensors read while answering, with the person's permissions.
    public let sensors: QuestionnaireSensors
    /// The language to ask in; nil follows the shell's current language.
    public let localizer: Localizer?
    /// The reminder that prompted this answer, if any: written into the finished sheet
    /// (``AnswerSheet/remindedAt``), where the study server tells on-time answers by it.
    public var remindedAt: OffsetTimestamp?

    /// - Parameter sensors: the sensors to read (the services' own when nil); a command hands
    ///   its own to measure a recording instead of the microphone for one answer.
    public init(services: CoreServices, keys: (any KeyInput)? = nil, sensors: QuestionnaireSensors? = nil,
                localizer: Localizer? = nil) {
        self.services = services
        self.keys = keys
        self.sensors = sensors ?? QuestionnaireSensors(services: services)
        self.localizer = localizer
    }

    public var drafts: QuestionnaireDraftStore { QuestionnaireDraftStore(database: services.database, clock: services.clock) }

    /// The version recorded in every sheet.
    public static var clientVersion: String { "uniti \(UNITIVersion.string)" }

    /// Answers `definition` for `owner` (a module id). With `keepsDraft` false (a preview)
    /// nothing is written to the database. Throws `PromptCancelled` when the person abandons
    /// (the draft stays), and a `UNITIError` naming the problem when the sheet cannot be submitted.
    ///
    /// - Parameters:
    ///   - syncsDraft: the draft also travels to the person's other devices (``SyncedDrafts``),
    ///     so they can continue there; for questionnaires answered once, such as a baseline.
    ///   - asPage: a definition presented `allOnOnePage` is answered as one page
    ///     (``QuestionnaireFrontEnd/runAsPage(_:afterEachAnswer:)``): everything visible, questions
    ///     opened by number, saving refused while required ones are unanswered. Off, and for
    ///     `oneAtATime` definitions, questions are asked one after another.
    ///   - requiring: which questions must be answered before saving (``RequiredAnswers``);
    ///     the definition's own flags by default.
    ///   - storing: stores the finished result in the same transaction that drops the draft, so
    ///     no moment exists in which the answers are in neither place. Without it the caller
    ///     stores the returned sheet itself.
    public func answer(_ definition: QuestionnaireDefinition, owner: ModuleID, keepsDraft: Bool = true,
                       syncsDraft: Bool = false, asPage: Bool = false, requiring: RequiredAnswers = .asDefined,
                       storing: ((QuestionnaireResult, Database) throws -> Void)? = nil) throws -> QuestionnaireResult {
        let required = requiring.applied(to: definition)
        let localizer = self.localizer ?? CurrentLanguage.localizer
        let problems = QuestionnaireValidator.validate(required)
        guard problems.isEmpty else {
            throw UNITIError(localizer("questionnaire.error.invalidDefinition", [
                "id": required.id, "problems": localizer("questionnaire.count.problems", count: problems.count),
                "first": problems[0].description,
            ]))
        }
        // A text missing in the reader's language reads as the study's first language, then English.
        let definition = required.reading(in: localizer.language.rawValue)
        let console = services.console
        // One program at a time answers a questionnaire of a data directory, so two windows
        // cannot end up with the same draft; and nothing is asked that could not be saved.
        if keepsDraft { try requireRoomToSave(localizer: localizer) }
        let answering = keepsDraft ? try claimAnswering(definition, owner: owner, localizer: localizer) : nil
        defer { answering?.release() }
        let session = try startSession(definition, owner: owner, keepsDraft: keepsDraft, syncsDraft: syncsDraft, localizer: localizer)
        // The prompt this answer follows, if any, decided by when it is begun (now): opened now,
        // answered (in time, or late when begun after the window) when saved. Begun after the
        // window and its late allowance, it is the participant's own and the prompt stays missed.
        let prompts = PromptLog(database: services.database, clock: services.clock)
        let begun = services.clock.now
        let prompt = keepsDraft ? try prompts.answering(moduleID: owner.rawValue, questionnaireID: definition.id, at: begun,
                                                        lateAllowance: definition.lateAnswerAllowance) : nil
        if let prompt { try prompts.opened(prompt, at: begun) }
        let text = QuestionnaireText(localizer: localizer)
        console.line(text.text(definition.title))
        if let intro = definition.intro { console.line(text.text(intro)) }
        // Sensors run from here until the last answer, and their readings go into the sheet.
        let capture = try sensors.start(definition.sensors, localizer: localizer)

        let database = services.database
        let clock = services.clock
        let records = SyncedRecords(owner: owner, database: database, clock: clock)
        let saveDraft: (QuestionnaireSession) throws -> Void = { session in
            guard keepsDraft else { return }
            let draft = session.draft(clientVersion: Self.clientVersion)
            do {
                try database.writer.write { db in
                    if syncsDraft {
                        try records.saveDraft(draft, in: db)
                    } else {
                        try QuestionnaireDraftStore.save(draft, owner: owner, at: clock.now, in: db)
                    }
                }
            } catch where StorageFailure.kind(of: error) != nil {
                throw self.rescue(draft, owner: owner, after: error, localizer: localizer)
            }
        }
        do {
            let frontEnd: any QuestionnaireFrontEnd
            if let keys = keys ?? (services.input.isInteractive ? TerminalKeyInput.standardInput() : nil) {
                frontEnd = TerminalQuestionnaireRunner(console: console, input: services.input, keys: keys, localizer: localizer)
            } else {
                frontEnd = LineQuestionnaireRunner(console: console, input: services.input, localizer: localizer)
            }
            if asPage, definition.presentation == .allOnOnePage {
                try frontEnd.runAsPage(session, afterEachAnswer: saveDraft)
            } else {
                try frontEnd.run(session, afterEachAnswer: saveDraft)
            }
        } catch let cancel as PromptCancelled {
            capture.cancel()
            if keepsDraft, !session.visited.isEmpty {
                try saveDraft(session)
                console.error(localizer("questionnaire.draftKept", ["title": text.text(definition.title)]))
                throw PromptCancelled(cancel.reason, keptAnswers: true)
            }
            throw cancel
        } catch {
            capture.cancel()
            throw error
        }
        if let readings = capture.stop() { session.sensors = readings }
        var sheet = try session.finish(clientVersion: Self.clientVersion)
        sheet.remindedAt = remindedAt
        // Asked again as of the beginning: the prompt may have been answered meanwhile (by a
        // program that saved first); a window that ended while the person answered does not
        // matter, what counts is that the answer was begun inside it.
        let saved = services.clock.now
        let answered = keepsDraft ? try prompts.answering(moduleID: owner.rawValue, questionnaireID: definition.id, at: begun,
                                                          lateAllowance: definition.lateAnswerAllowance) : nil
        if let answered {
            sheet.promptId = answered.promptID
            sheet.promptedAt = OffsetTimestamp(answered.deliveredAt, in: services.clock.timeZone)
            sheet.late = answered.isLate
        }
        if keepsDraft { sheet.initiatedBy = answered == nil ? .participant : .prompt }
        let result = QuestionnaireResult(sheet: sheet, scores: QuestionnaireScorer.scores(for: definition, answers: sheet.values))
        if keepsDraft || storing != nil {
            do {
                try database.writer.write { db in
                    try storing?(result, db)
                    guard keepsDraft else { return }
                    if let answered { try prompts.answered(answered, by: sheet.id, at: saved, in: db) }
                    if syncsDraft {
                        try records.finishDraft(with: sheet, in: db)
                    } else {
                        try QuestionnaireDraftStore.delete(owner: owner, questionnaireID: definition.id, in: db)
                    }
                }
            } catch where keepsDraft && StorageFailure.kind(of: error) != nil {
                // Every answer is given: they come back as a complete draft, stored on resume.
                throw rescue(session.draft(clientVersion: Self.clientVersion), owner: owner, after: error, localizer: localizer)
            }
        }
        if let outro = definition.outro { console.line(text.text(outro)) }
        // The study's message after saving and the help for a score that reached its threshold.
        for line in definition.textsAfterSaving(scores: result.scores) { console.line(text.text(line)) }
        return result
    }

    /// How long a script's answers wait for another program answering the same questionnaire.
    public static let otherAnswerPatience: TimeInterval = 120
    /// The room a draft needs at the least (a few pages of the database's log).
    static let roomNeeded: UInt64 = 512 * 1024

    /// Takes the data directory's lock for answering this questionnaire. A person at a terminal
    /// is told at once that another window is answering it (nothing has been asked yet); a script,
    /// whose answers are given already, waits for the other program to finish.
    private func claimAnswering(_ definition: QuestionnaireDefinition, owner: ModuleID, localizer: Localizer) throws -> FileLock {
        let lock = services.dataDirectory.lock("answering-\(owner)-\(definition.id)")
        if try lock.tryAcquire() { return lock }
        if !services.input.isInteractive, try lock.acquire(timeout: Self.otherAnswerPatience) { return lock }
        throw UNITIError(localizer("questionnaire.answeredElsewhere", [
            "title": definition.title.text(in: localizer.language.rawValue),
            "process": lock.holder.map(String.init) ?? "?",
        ]))
    }

    /// Refuses to start when the data directory cannot take the answers (a read-only file system,
    /// a full disk), before the first question, so nobody answers what could not be kept.
    private func requireRoomToSave(localizer: Localizer) throws {
        guard let disk = DiskSpace(of: services.dataDirectory.path) else { return }
        if disk.isReadOnly {
            throw UNITIError(localizer("questionnaire.readOnly", ["path": services.dataDirectory.path]))
        }
        let free = disk.freeBytes
        guard free < Self.roomNeeded else { return }
        throw UNITIError(localizer("questionnaire.noRoom", ["path": services.dataDirectory.path, "free": "\(free / 1024)"]))
    }

    /// Keeps a draft that could not be saved outside the data directory (``AnswerRescue``) and
    /// returns the one line that says what happened and where the answers wait.
    private func rescue(_ draft: QuestionnaireDraft, owner: ModuleID, after error: Error, localizer: Localizer) -> UNITIError {
        let problem = StorageFailure.message(for: error, directory: services.dataDirectory.path) ?? "\(error)"
        if let path = AnswerRescue(dataDirectory: services.dataDirectory).keep(draft, owner: owner, at: services.clock.now) {
            return UNITIError(problem + " " + localizer("questionnaire.rescued", count: draft.sheet.answers.count, ["path": path]))
        }
        return UNITIError(problem + " " + localizer("questionnaire.notRescued", count: draft.sheet.answers.count))
    }

    private func startSession(_ definition: QuestionnaireDefinition, owner: ModuleID, keepsDraft: Bool, syncsDraft: Bool,
                              localizer: Localizer) throws -> QuestionnaireSession {
        let fresh = { QuestionnaireSession(definition: definition, clock: self.services.clock, language: localizer.language.rawValue) }
        guard keepsDraft, let draft = try drafts.draft(owner: owner, questionnaireID: definition.id) else { return fresh() }
        guard draft.sheet.questionnaireVersion == definition.version else {
            // Answers to another version would be misread; the old draft goes.
            try drafts.delete(owner: owner, questionnaireID: definition.id)
            services.console.error(localizer("questionnaire.draftOutdated", ["version": String(draft.sheet.questionnaireVersion)]))
            return fresh()
        }
        let started = draft.sheet.startedAt.minuteText
        let prompt = localizer("questionnaire.resume.ask", count: draft.sheet.answers.count, [
            "title": definition.title.text(in: localizer.language.rawValue), "time": started,
        ]) + " "
        while true {
            guard let line = try services.input.readLine(prompt: prompt) else { throw PromptCancelled(.endOfInput) }
            switch AnswerParser.read(line, for: .yesNo) {
            case .value(let value) where value == .yesNo(true):
                return QuestionnaireSession(resuming: draft, definition: definition, clock: services.clock)
            case .value:
                // Starting afresh drops the draft here and, when it is synced, on other devices.
                try services.database.writer.write { db in
                    if syncsDraft {
                        try SyncedRecords(owner: owner, database: services.database, clock: services.clock)
                            .discardDraft(questionnaireID: definition.id, in: db)
                    } else {
                        try QuestionnaireDraftStore.delete(owner: owner, questionnaireID: definition.id, in: db)
                    }
                }
                return fresh()
            default:
                services.console.line(localizer("questionnaire.accept.yesNo"))
            }
        }
    }
}

/// A finished sheet and its scores.
public struct QuestionnaireResult: Codable, Hashable, Sendable {
    public var sheet: AnswerSheet
    public var scores: [ScoreResult]

    public init(sheet: AnswerSheet, scores: [ScoreResult]) {
        self.sheet = sheet
        self.scores = scores
    }
}

extension ModuleContext {
    /// The questionnaire engine, answering on behalf of this module.
    public var questionnaires: QuestionnaireEngine { QuestionnaireEngine(services: services) }

    /// The shared store for finished answer sheets.
    public var answerSheets: AnswerSheetStore { AnswerSheetStore(database: database, clock: clock) }
}
