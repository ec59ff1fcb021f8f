import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// Questionnaires: upload, the active version, the preview as participants see it, each one's settings (``ConsoleQuestionnaireSettings``).
extension ConsolePage {
    // Viewers (a monitor, a PI) read the whole design: the list, each preview (trying it stores
    // nothing) and each questionnaire's settings; changing any of them is an editor's.
    static let questionnaires = study("questionnaires", "studies/:study/questionnaires", .viewer, tab: "questionnaires", site: true) {
        try await $0.questionnaires($1, $2)
    }
    static let uploadQuestionnaire = study("uploadQuestionnaire", .post, "studies/:study/questionnaires", .editor) {
        try await $0.uploadQuestionnaire($1, $2)
    }
    static let switchQuestionnaire = study("switchQuestionnaire", .post, "studies/:study/questionnaires/active", .editor) {
        try await $0.switchQuestionnaire($1, $2)
    }
    static let preview = study("preview", "studies/:study/questionnaires/:questionnaire/preview", .viewer, site: true) { try await $0.preview($2) }
    static let submitPreview = study("submitPreview", .post, "studies/:study/questionnaires/:questionnaire/preview", .viewer, site: true) {
        try await $0.previewSubmission($1, $2)
    }
    static let questionnaireSettings = study("questionnaireSettings", "studies/:study/questionnaires/:questionnaire/settings", .viewer, site: true) {
        try await $0.questionnaireSettings($1, $2)
    }
    static let saveQuestionnaireSettings = study("saveQuestionnaireSettings", .post, "studies/:study/questionnaires/:questionnaire/settings",
                                                 .editor) { try await $0.saveQuestionnaireSettings($1, $2) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let questionnairePages: [ConsolePage] = [
        questionnaires, uploadQuestionnaire, switchQuestionnaire, preview, submitPreview, questionnaireSettings, saveQuestionnaireSettings,
    ]
}

extension ConsoleRoutes {

    func questionnaires(_ request: Request, _ context: StudyContext) async throws -> Response {
        var shown = try await questionnairesPage(context.study.study.id, context.console.language)
        shown.canEdit = ConsolePage.uploadQuestionnaire.allows(context.study)
        return try await page(shown, context,
                       notice: notice(request, context.console.language))
    }

    func questionnairesPage(_ studyId: String, _ language: String) async throws -> ConsoleQuestionnairesPage {
        let links = try await store.questionnaireLinks(studyId: studyId)
        let study = try await store.study(id: studyId)
        let rows = try await store.latestQuestionnaires(studyId: studyId).map { document in
            let link = links.first { $0.questionnaireId == document.id }
            let definition = study.map { StudyLanguages.served(document.definition, study: $0) } ?? document.definition
            // What a participant of each of the study's languages finds missing (the Settings tab says what they read instead).
            let missing = (study.map(StudyLanguages.checkedLanguages) ?? []).compactMap { code -> String? in
                let count = definition.texts.filter { $0.text.values[code] == nil }.count
                return count == 0 ? nil : "\(Self.languageName(code, language)) \(count)"
            }
            return ConsoleQuestionnairesPage.Row(id: document.id, version: document.version,
                                                 title: definition.title.text(in: language, fallback: definition.fallbackLanguage),
                                                 module: link?.module.rawValue ?? "",
                                                 kind: PortalText.text("console.questionnaires.kind.\(document.definition.kind.rawValue)", language),
                                                 active: link?.deactivatedAt == nil,
                                                 missing: missing.isEmpty ? PortalText.text("console.questionnaires.missingNone", language)
                                                     : missing.joined(separator: ", "))
        }
        return ConsoleQuestionnairesPage(questionnaires: rows, modules: ModuleCatalog.ids.map {
            .init(value: $0.rawValue, label: PortalText.text("console.module.\($0.rawValue)", language), chosen: false)
        })
    }

    /// A definition pasted into the form, checked and stored as `questionnaire import` does it
    /// (``StudyAdministration/importQuestionnaire(_:into:module:)``): every problem is listed
    /// with its path, and nothing is stored until there is none. No module chosen: the rule the
    /// command line follows.
    func uploadQuestionnaire(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id, language = context.console.language
        var shown = try await questionnairesPage(studyId, language)
        shown.definition = form["definition"]
        do {
            _ = try await administration(context).importQuestionnaire(Data(form["definition"].utf8), into: studyId,
                                                                      module: form["module"].isEmpty ? nil : form["module"])
            return context.console.base.redirect(to: "/console/studies/\(studyId)/questionnaires?notice=questionnaireStored")
        } catch let problems as QuestionnaireProblems {
            shown.problems = problems.problems
        } catch {
            guard let (_, message) = Self.explain(error, language) else { throw error }
            shown.problems = [message]
        }
        return try await page(shown, context, status: .unprocessableContent, error: PortalText.text("console.error.questionnaire", language))
    }

    func switchQuestionnaire(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        guard try await administration(context).setQuestionnaireActive(id: form["questionnaire"], studyId: studyId,
                                                                       active: form["active"] == "true") != nil else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        return context.console.base.redirect(to: "/console/studies/\(studyId)/questionnaires")
    }

    /// The newest version as a participant sees it: the portal's own page, template and layout
    /// (the layout of a visitor: the preview has no participant), every item on one page with
    /// its `showIf` live.
    func preview(_ context: StudyContext) async throws -> Response {
        try await previewPage(try await questionnaire(context), context)
    }

    /// A preview submitted: read and checked exactly as the portal reads and checks a
    /// participant's finished form (``PortalAnswerForm``, then the shared ``AnswerSheetValidator``
    /// over the whole sheet), shown again with each problem beside its item, or with the answers
    /// a participant's sheet would hold. Nothing is stored: this is no participant's sheet.
    func previewSubmission(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), document = try await questionnaire(context), language = context.console.language
        let definition = document.definition
        let read = PortalAnswerForm.read(form.fields, items: Array(definition.items.indices), of: definition, into: [:],
                                         at: OffsetTimestamp(environment.clock.now(), in: TimeZone(identifier: "UTC")!))
        var problems = read.problems
        for problem in AnswerSheetValidator.validate(answers: read.answers.mapValues(\.value), isPartial: false, against: definition) {
            guard let label = problem.label, problems[label] == nil, let item = definition.item(labeled: label) else { continue }
            problems[label] = PortalAnswerProblem(code: problem.code, item: item)
        }
        guard problems.isEmpty else {
            return try await previewPage(document, context, shown: read.shown, problems: problems, status: .unprocessableContent,
                                         error: PortalText.text("console.preview.refused", language))
        }
        let stored = definition.items.compactMap { item in read.answers[item.label].map { "\(item.label) = \($0.value)" } }
        return try await previewPage(document, context, shown: read.shown,
                                     notice: PortalText.text("console.preview.wouldStore", language,
                                                             ["answers": stored.isEmpty ? "–" : stored.joined(separator: "; ")]))
    }

    func previewPage(_ document: QuestionnaireDocument, _ context: StudyContext, shown: [String: AnswerValue] = [:],
                             problems: [String: PortalAnswerProblem] = [:], status: HTTPResponse.Status = .ok,
                             notice: String? = nil, error: String? = nil) async throws -> Response {
        // As a participant reading the console's language reads it (``StudyLanguages``).
        let visit = context.console.base
        let definition = StudyLanguages.served(document.definition, study: context.study.study).reading(in: visit.language)
        let intro = definition.intro?.text(in: visit.language)
        var form = QuestionnairePage(title: definition.title.text(in: visit.language),
                                     action: "/console/studies/\(document.studyId)/questionnaires/\(document.id)/preview",
                                     intro: intro?.isEmpty == false ? intro : nil)
        form.fillable = true
        form.onePage = true
        var view = PortalQuestionnaireView(definition: definition, language: visit.language, shown: shown)
        view.problems = problems
        form.items = view.items(Array(definition.items.indices), conditions: true)
        // Beside the form, the shell's own lines: a study questionnaire on one page is answered
        // there as a page (the page, its questions, where a required one may be passed with
        // Enter for later, and the page's prompt).
        let shellText = QuestionnaireText(localizer: Localizer(language: Language(code: visit.language) ?? .english))
        form.shell = .init(heading: PortalText.text("console.preview.shell.heading", visit.language),
                           note: PortalText.text("console.preview.shell.note", visit.language),
                           text: shellText.walkLines(definition, asPage: true)
                               .joined(separator: "\n"))
        return visit.html(try templates.get().render(form, PortalLayout(visit, notice: notice ?? PortalText.text("console.preview.note", visit.language),
                                                                        error: error)), status: status)
    }
}
