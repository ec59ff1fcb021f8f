import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol

/// The questionnaire pages: the baseline and the study questionnaires as HTML forms, with the
/// draft the shell shares (`draft:<questionnaire>`).
///
/// Every save keeps the half-answered questionnaire as the same synced draft record the shell and
/// the modules write, so a person continues anywhere: in `uniti baseline`, in a module, or here.
/// Finishing stores one sheet through ``SheetIntake`` (the path of `POST /api/v1/sheets`) and
/// puts the finished sheet in the draft's place, as the core's `finishDraft` does, so every
/// device drops its draft and knows the questionnaire is answered.
///
/// The forms work without script: `showIf` and the rules of each item are applied here on every
/// post (answers to items that other answers hide are dropped); `/portal.js` only shows and hides
/// items as the person answers, moves the slider and tells the page the browser's UTC offset.
extension PortalRoutes {
    /// Written into the sheets and drafts the portal stores, like `uniti 0.2.0` of the shell.
    static let portalClientVersion = "uniti-portal 0.2.0"

    func registerQuestionnairePages(on group: RouterGroup<ParticipantContext>) {
        group.get("questionnaires") { request, context in try await questionnaireList(request, context) }
        group.get("questionnaires/:id") { request, context in try await questionnairePage(request, context) }
        group.post("questionnaires/:id") { request, context in try await questionnairePost(request, context) }
    }

    private var questionnaires: PortalQuestionnaires { PortalQuestionnaires(environment: environment) }

    // MARK: The list

    private func questionnaireList(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit, userId = context.participant.account.id
        let finished = try await questionnaires.lastFinished(userId: userId)
        var baseline: [QuestionnaireListPage.Entry] = []
        var study: [QuestionnaireListPage.Entry] = []
        for questionnaire in try await questionnaires.available(userId: userId, language: visit.language) {
            let draft = try await questionnaires.draft(of: questionnaire, userId: userId)
            var entry = QuestionnaireListPage.Entry(title: questionnaire.definition.title.text(in: visit.language),
                                                    href: "/questionnaires/\(questionnaire.id)", id: questionnaire.id, state: "")
            let done = finished[questionnaire.id] ?? draft.flatMap { $0.draft.sheet.isPartial ? nil : $0.draft.sheet.endedAt }
            let t = { (key: String, values: [String: String]) in PortalText.text("portal.questionnaire.state.\(key)", visit.language, values) }
            if !questionnaire.active {
                entry.state = t("closed", [:])
                entry.closed = true
            } else if questionnaire.isOneTime, let done {
                entry.state = t("done", ["date": done.minuteText])
                entry.done = true
            } else if let draft, draft.draft.sheet.isPartial {
                entry.state = t("started", ["count": String(draft.draft.sheet.answers.count)])
            } else if let done {
                entry.state = t("again", ["date": done.minuteText])
            } else {
                entry.state = t("open", [:])
            }
            if questionnaire.isBaseline { baseline.append(entry) } else { study.append(entry) }
        }
        return try page(QuestionnaireListPage(baseline: baseline, study: study), visit, notice: notice(request, visit.language))
    }

    // MARK: One questionnaire

    /// The person's questionnaire named in the path, or the 404 page (another person's study,
    /// a study they have not joined, or no such questionnaire: all look the same).
    private func ownQuestionnaire(_ context: ParticipantContext, _ session: PortalSession) async throws -> PortalQuestionnaire {
        guard let id = context.parameters.get("id"), id.count <= 128,
              let questionnaire = try await questionnaires.questionnaire(id: id, userId: session.account.id, language: context.visit.language) else {
            throw PortalRefusal(status: .notFound, messageKey: "portal.questionnaire.notFound")
        }
        return questionnaire
    }

    /// The draft to continue: the stored one when it is unfinished (its answers checked against
    /// the current version, as the shell resumes), else nil.
    private func openDraft(_ stored: (draft: QuestionnaireDraft, updatedAt: Date)?, of questionnaire: PortalQuestionnaire) -> QuestionnaireDraft? {
        guard var draft = stored?.draft, draft.sheet.isPartial else { return nil }
        let definition = questionnaire.definition
        draft.sheet.questionnaireVersion = definition.version
        draft.sheet.answers = PortalAnswerForm.visibleOnly(draft.sheet.answers.filter { label, answer in
            guard let item = definition.item(labeled: label) else { return false }
            return AnswerSheetValidator.check(answer.value, for: item) == nil
        }, in: definition)
        draft.visited = draft.visited.filter { definition.item(labeled: $0) != nil }
        return draft
    }

    /// When a one-time questionnaire was finished (here, in the shell or in a module), if it was.
    private func finishedAt(_ questionnaire: PortalQuestionnaire, stored: (draft: QuestionnaireDraft, updatedAt: Date)?,
                            userId: Int64) async throws -> OffsetTimestamp? {
        guard questionnaire.isOneTime else { return nil }
        if let sheet = stored?.draft.sheet, !sheet.isPartial { return sheet.endedAt ?? sheet.startedAt }
        return try await questionnaires.lastFinished(userId: userId)[questionnaire.id]
    }

    private func questionnairePage(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit, session = context.participant
        let questionnaire = try await ownQuestionnaire(context, session)
        let stored = try await questionnaires.draft(of: questionnaire, userId: session.account.id)
        if let done = try await finishedAt(questionnaire, stored: stored, userId: session.account.id) {
            var finished = header(questionnaire, visit)
            finished.finished = PortalText.text("portal.questionnaire.finishedOn", visit.language, ["date": done.minuteText])
            return try page(finished, visit)
        }
        let draft = openDraft(stored, of: questionnaire)
        let answers = draft?.sheet.answers ?? [:]
        var position: Position = .all
        if questionnaire.definition.presentation == .oneAtATime {
            let questions = visibleQuestions(questionnaire.definition, answers.mapValues(\.value))
            let asked = request.uri.queryParameters["at"].map(String.init)
            if asked == "end" {
                position = .end
            } else if let asked, let index = Int(asked), questions.contains(index) {
                position = .item(index)
            } else if let next = questions.first(where: { !(draft?.visited ?? []).contains(questionnaire.definition.items[$0].label) }) {
                position = .item(next)
            } else {
                position = .end
            }
        }
        var draftNote: String?
        if let draft, !draft.sheet.answers.isEmpty || !draft.visited.isEmpty {
            draftNote = PortalText.text("portal.questionnaire.draftNote", visit.language)
        }
        return try questionnaireForm(questionnaire, visit, position: position, shown: answers.mapValues(\.value), problems: [:],
                                     notice: notice(request, visit.language), draftNote: draftNote)
    }

    /// Where a one-at-a-time questionnaire stands: at one item, or at the end (the finish button);
    /// `all` for a questionnaire on one page.
    private enum Position: Equatable {
        case all
        case item(Int)
        case end
    }

    /// Indexes of the questions shown given the answers, in order.
    private func visibleQuestions(_ definition: QuestionnaireDefinition, _ answers: [String: AnswerValue]) -> [Int] {
        let visible = definition.visibleLabels(given: answers)
        return definition.items.indices.filter { definition.items[$0].element.isQuestion && visible.contains(definition.items[$0].label) }
    }

    private func header(_ questionnaire: PortalQuestionnaire, _ visit: PortalVisit) -> QuestionnairePage {
        let intro = questionnaire.definition.intro?.text(in: visit.language)
        return QuestionnairePage(
            title: questionnaire.definition.title.text(in: visit.language), action: "/questionnaires/\(questionnaire.id)",
            intro: intro?.isEmpty == false ? intro : nil,
            closed: questionnaire.active ? nil : PortalText.text("portal.questionnaire.state.closed", visit.language, [:]))
    }

    /// The form at `position`; `error` (else the count of `problems`) and `notice` are the layout's lines.
    private func questionnaireForm(_ questionnaire: PortalQuestionnaire, _ visit: PortalVisit, status: HTTPResponse.Status = .ok,
                                   position: Position, shown: [String: AnswerValue], problems: [String: PortalAnswerProblem],
                                   notice: String? = nil, error: String? = nil, draftNote: String? = nil) throws -> Response {
        let definition = questionnaire.definition
        let view = PortalQuestionnaireView(definition: definition, language: visit.language, shown: shown, problems: problems)
        var form = header(questionnaire, visit)
        form.fillable = questionnaire.active
        form.draftNote = draftNote
        switch position {
        case .all:
            form.items = view.items(Array(definition.items.indices), conditions: true)
            form.onePage = true
        case .item(let index):
            // Display items right before the question belong to it (a headline, an instruction).
            var first = index
            while first > 0, !definition.items[first - 1].element.isQuestion { first -= 1 }
            form.items = view.items(Array(first...index), conditions: false)
            form.stepMode = true
            form.at = String(index)
            let questions = visibleQuestions(definition, shown)
            let place = (questions.firstIndex(of: index) ?? 0) + 1
            form.progress = PortalText.text("portal.questionnaire.progress", visit.language,
                                            ["position": String(place), "total": String(max(questions.count, place))])
            form.hasBack = place > 1
        case .end:
            form.items = []
            form.end = true
            form.hasBack = true
        }
        let problemsLine = problems.isEmpty ? nil
            : PortalText.text("portal.questionnaire.problems", visit.language, ["count": String(problems.count)])
        return try page(form, visit, status: status, notice: notice, error: error ?? problemsLine)
    }

    // MARK: Saving

    /// The browser's UTC offset in minutes as the page's script reports it; UTC without it.
    static func timeZone(minutes text: String) -> TimeZone {
        guard let minutes = Int(text.trimmingCharacters(in: .whitespaces)), (-14 * 60...14 * 60).contains(minutes) else {
            return TimeZone(secondsFromGMT: 0)!
        }
        return TimeZone(secondsFromGMT: minutes * 60) ?? TimeZone(secondsFromGMT: 0)!
    }

    private func questionnairePost(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit, session = context.participant
        let userId = session.account.id
        let questionnaire = try await ownQuestionnaire(context, session)
        let definition = questionnaire.definition
        let path = "/questionnaires/\(questionnaire.id)"
        let stored = try await questionnaires.draft(of: questionnaire, userId: userId)
        if try await finishedAt(questionnaire, stored: stored, userId: userId) != nil { return visit.redirect(to: path) }
        guard questionnaire.active else { throw PortalRefusal(status: .conflict, messageKey: "portal.questionnaire.state.closed") }

        let zone = Self.timeZone(minutes: form["utcOffset"])
        var draft = openDraft(stored, of: questionnaire) ?? QuestionnaireDraft(
            sheet: AnswerSheet(id: UUID(), questionnaireID: definition.id, questionnaireVersion: definition.version,
                               startedAt: OffsetTimestamp(environment.clock.now(), in: zone), clientVersion: Self.portalClientVersion,
                               isPartial: true, language: visit.language),
            visited: [])
        // Never before the sheet's start, even when the device that started it ran ahead.
        let now = OffsetTimestamp(max(environment.clock.now(), draft.sheet.startedAt.date), in: zone)

        let action = form["action"]
        var position: Position = .all
        var onPage = Array(definition.items.indices)
        if definition.presentation == .oneAtATime {
            if let index = Int(form["at"]), definition.items.indices.contains(index) {
                position = .item(index)
                onPage = [index]
            } else {
                position = .end
                onPage = []
            }
        }
        let before = definition.visibleLabels(given: draft.sheet.answers.mapValues(\.value))
        let read = PortalAnswerForm.read(form.fields, items: onPage, of: definition, into: draft.sheet.answers, at: now)
        var problems = read.problems
        draft.sheet.answers = read.answers
        draft.sheet.clientVersion = Self.portalClientVersion
        let visible = definition.visibleLabels(given: read.answers.mapValues(\.value))
        var visited = Set(draft.visited)
        switch position {
        case .all:
            visited.formUnion(read.answers.keys)
        case .item(let index):
            let item = definition.items[index]
            if action == "next", problems[item.label] == nil, item.required, read.answers[item.label] == nil {
                problems[item.label] = PortalAnswerProblem(code: .requiredMissing, item: item)
            }
            // Passed, as the shell counts it: answered, or left empty on purpose with "next".
            if problems[item.label] == nil, action == "next" || read.answers[item.label] != nil { visited.insert(item.label) }
        case .end:
            break
        }
        draft.visited = visited.intersection(visible).sorted()
        if action == "finish" {
            // Everything that keeps the sheet from being sent, named at once beside its item: the
            // shared validator's rules, as the API's sheet upload applies them.
            for problem in AnswerSheetValidator.validate(answers: read.answers.mapValues(\.value), isPartial: false, against: definition) {
                guard let label = problem.label, problems[label] == nil, let item = definition.item(labeled: label) else { continue }
                problems[label] = PortalAnswerProblem(code: problem.code, item: item)
            }
            // One at a time, the first question with a problem is the page to show.
            if position != .all, let first = definition.items.indices.first(where: { problems[definition.items[$0].label] != nil }) {
                position = .item(first)
            }
        }
        // What was accepted is kept before anything is refused: no answer is lost.
        let savedAt = try await questionnaires.save(draft, of: questionnaire, userId: userId, replacing: stored?.updatedAt)
        if !problems.isEmpty {
            return try questionnaireForm(questionnaire, visit, status: .unprocessableContent, position: position, shown: read.shown, problems: problems)
        }

        let questions = visibleQuestions(definition, read.answers.mapValues(\.value))
        switch action {
        case "next", "back":
            guard case .item(let index) = position else {
                return visit.redirect(to: questions.last.map { "\(path)?at=\($0)" } ?? path)
            }
            let target = action == "next" ? questions.first { $0 > index } : questions.last { $0 < index }
            return visit.redirect(to: target.map { "\(path)?at=\($0)" } ?? (action == "next" ? "\(path)?at=end" : path))
        case "finish":
            break
        default:
            return visit.redirect(to: "/questionnaires?notice=questionnaireSaved")
        }

        // Without the script (it fills in the UTC offset) the page could not show the questions
        // these answers bring up: show them before finishing, rather than skip them unseen.
        if position == .all, form["utcOffset"].isEmpty,
           definition.items.contains(where: { $0.element.isQuestion && visible.contains($0.label) && !before.contains($0.label) }) {
            return try questionnaireForm(questionnaire, visit, position: position, shown: read.shown, problems: [:],
                                         notice: PortalText.text("portal.questionnaire.moreQuestions", visit.language))
        }
        var sheet = draft.sheet
        sheet.isPartial = false
        sheet.endedAt = now
        sheet.owner = questionnaire.owner
        sheet.language = sheet.language ?? visit.language
        do {
            _ = try await SheetIntake(environment: environment).accept([sheet], userId: userId)
        } catch {
            guard let (status, message) = Self.explain(error, visit.language) else { throw error }
            return try questionnaireForm(questionnaire, visit, status: status, position: position, shown: read.shown, problems: [:],
                                         error: message)
        }
        // The finished sheet in the draft's place ends the draft on every device.
        try await questionnaires.save(QuestionnaireDraft(sheet: sheet, visited: []), of: questionnaire, userId: userId,
                                      replacing: savedAt)
        // A study's message after saving (and help for a high score) is shown at once, with the sheet.
        if definition.afterSaving != nil { return visit.redirect(to: "/data/sheets/\(sheet.id.uuidString.lowercased())?saved=1") }
        return visit.redirect(to: "/questionnaires?notice=questionnaireDone")
    }
}
