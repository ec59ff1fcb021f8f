import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// `screening.mustache`: a study's screening questions on one page, every question required, with
/// what joining asks besides (the keep-answers question, the password, the consent), or the
/// study's words for someone it found not eligible.
struct ScreeningPage: PortalPage {
    var template: String { "screening" }
    var study: String
    var studyTitle: String
    var title: String
    var intro: String?
    /// When the questions were first shown (the sheet's start), carried through the form.
    var started: String
    var site: String?
    var siteText: String?
    var items: [PortalQuestionnaireView.Item] = []
    var keepQuestion: String?
    var keep = false
    var password = false
    var consentHTML: String?
    var consentVersion: Int?
    var submitLabel: String
    var ineligibleHTML: String?
    var keptNote: String?
}

/// The portal's screening before joining (issue 48, "Eligibility screening"): the rules are
/// ``StudyService/enrol(userId:studyId:password:consentVersion:site:screening:)``'s, as for the
/// apps. No draft is kept: the answers exist only in the form until the person sends them, and
/// a refused form comes back with everything typed.
extension PortalRoutes {
    func registerScreeningPages(on group: RouterGroup<ParticipantContext>) {
        group.get("studies/screening") { request, context in try await screeningPage(request, context) }
        group.post("studies/screening") { request, context in try await screeningPost(request, context) }
    }

    /// The study and its screening for someone who may still join it; nil sends them to the studies page.
    private func screeningFor(_ studyId: String, userId: Int64) async throws -> (StudyRecord, StudyScreeningInfo)? {
        let service = StudyService(environment: environment)
        guard StudyRules.isValidId(studyId), let study = try await environment.store.study(id: studyId) else { return nil }
        let membership = try await environment.store.membership(studyId: study.id, userId: userId)
        guard membership != .member, membership != .pending, StudyPresenter.isOpen(study, now: environment.clock.now()),
              let screening = try await service.screeningInfo(study, membership: membership) else { return nil }
        return (study, screening)
    }

    private func screeningForm(_ study: StudyRecord, _ screening: StudyScreeningInfo, _ visit: PortalVisit, site: String?,
                               started: OffsetTimestamp, shown: [String: AnswerValue] = [:],
                               problems: [String: PortalAnswerProblem] = [:], keep: Bool = false) async throws -> ScreeningPage {
        let language = visit.language, fallback = study.fallbackLanguage
        let definition = screening.questionnaire.reading(in: language)
        let known = site == nil ? nil : try await environment.store.sites(studyId: study.id).first { $0.id == site }
        let view = PortalQuestionnaireView(definition: definition, language: language, shown: shown, problems: problems)
        let intro = definition.intro?.text(in: language)
        return ScreeningPage(
            study: study.id, studyTitle: study.title.text(in: language, fallback: fallback), title: definition.title.text(in: language),
            intro: intro?.isEmpty == false ? intro : nil, started: started.text, site: known?.id,
            siteText: known.map { PortalText.text("portal.studies.enrolSite", language, ["site": $0.name]) },
            items: view.items(Array(definition.items.indices), conditions: true),
            keepQuestion: screening.keepAnswersQuestion.map { $0.text(in: language, fallback: fallback) }, keep: keep,
            password: study.access == .password,
            consentHTML: study.consent.map { MarkdownText.html($0.text(in: language, fallback: fallback), topHeadingLevel: 3) },
            consentVersion: study.consentVersion,
            submitLabel: PortalText.text(study.access == .byRequest ? "portal.screening.submitRequest" : "portal.screening.submit", language))
    }

    private func screeningPage(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit, query = request.uri.queryParameters
        guard let (study, screening) = try await screeningFor(query["study"].map(String.init) ?? "", userId: context.participant.account.id) else {
            return visit.redirect(to: "/studies")
        }
        let started = OffsetTimestamp(environment.clock.now(), in: TimeZone(secondsFromGMT: 0)!)
        return try page(try await screeningForm(study, screening, visit, site: query["site"].map(String.init), started: started), visit)
    }

    private func screeningPost(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit, userId = context.participant.account.id
        guard let (study, screening) = try await screeningFor(form["study"], userId: userId) else { return visit.redirect(to: "/studies") }
        let definition = screening.questionnaire
        let zone = Self.timeZone(minutes: form["utcOffset"])
        let clock = environment.clock.now()
        let now = OffsetTimestamp(clock, in: zone)
        // The start the page carried, if it is a time of the last day; now otherwise.
        let started = OffsetTimestamp(parsing: form["started"]).map { $0.date }
            .flatMap { $0 <= clock && $0 > clock.addingTimeInterval(-86_400) ? OffsetTimestamp($0, in: zone) : nil } ?? now
        let site = form.fields["site"].flatMap { $0.isEmpty ? nil : $0 }
        let keep = form["keep"] == "yes"
        let read = PortalAnswerForm.read(form.fields, items: Array(definition.items.indices), of: definition, into: [:], at: now)
        var problems = read.problems
        for problem in AnswerSheetValidator.validate(answers: read.answers.mapValues(\.value), isPartial: false, against: definition) {
            guard let label = problem.label, problems[label] == nil, let item = definition.item(labeled: label) else { continue }
            problems[label] = PortalAnswerProblem(code: problem.code, item: item)
        }
        func again(_ status: HTTPResponse.Status, error: String) async throws -> Response {
            let form = try await screeningForm(study, screening, visit, site: site, started: started, shown: read.shown, problems: problems, keep: keep)
            return try page(form, visit, status: status, error: error)
        }
        guard problems.isEmpty else {
            return try await again(.unprocessableContent, error: PortalText.text("portal.questionnaire.problems", visit.language,
                                                                                 ["count": String(problems.count)]))
        }
        var sheet = AnswerSheet(id: UUID(), questionnaireID: definition.id, questionnaireVersion: definition.version, startedAt: started,
                                clientVersion: Self.portalClientVersion, isPartial: false, language: visit.language)
        sheet.answers = read.answers
        sheet.endedAt = now
        let enrolment: StudyService.Enrolment
        do {
            enrolment = try await StudyService(environment: environment).enrol(
                userId: userId, studyId: study.id, password: form.fields["password"], consentVersion: Int(form["consentVersion"]),
                site: site, screening: ScreeningAnswers(sheet: sheet, keepIfIneligible: keep))
        } catch {
            guard let (status, message) = Self.explain(error, visit.language) else { throw error }
            return try await again(status, error: message)
        }
        if let message = enrolment.ineligible {
            var page = try await screeningForm(study, screening, visit, site: site, started: started)
            page.ineligibleHTML = MarkdownText.html(message.text(in: visit.language, fallback: study.fallbackLanguage), topHeadingLevel: 3)
            page.keptNote = PortalText.text(keep && screening.keepAnswersQuestion != nil ? "portal.screening.kept" : "portal.screening.notKept",
                                            visit.language)
            return try self.page(page, visit)
        }
        return visit.redirect(to: enrolment.membership == .pending ? "/studies?notice=studyRequested" : "/studies?notice=studyJoined")
    }
}
