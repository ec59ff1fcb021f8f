import Foundation
import Hummingbird
import UNITIProtocol

/// `/api/v1/studies/...` and `/api/v1/questionnaires/...`: listing, joining and leaving studies,
/// and reading their questionnaires (with ETags), one study's or all joined studies' at once.
struct StudyRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// Both groups are of the authenticated API.
    func register(studies: RouterGroup<APIContext>, questionnaires: RouterGroup<APIContext>) {
        studies.get("") { request, context in try await list(request, context.user) }
        studies.get(":id") { _, context in try await show(context) }
        studies.post(":id/join") { request, context in try await join(request, context) }
        studies.post(":id/leave") { request, context in try await leave(request, context) }
        studies.get(":id/consent") { _, context in try await consent(context) }
        studies.post(":id/consent") { request, context in try await agree(request, context) }
        studies.get(":id/questionnaires") { _, context in try await studyQuestionnaires(context) }
        questionnaires.get("") { _, context in try await memberQuestionnaires(context.user) }
        questionnaires.get(":id/versions/:version") { _, context in try await questionnaire(context) }
    }

    private func studyId(_ context: APIContext) throws -> String {
        guard let id = context.parameters.get("id"), StudyRules.isValidId(id) else {
            throw APIError.notFound("No such study.")
        }
        return id
    }

    private var studies: StudyService { StudyService(environment: environment) }

    private func list(_ request: Request, _ user: AuthenticatedUser) async throws -> ETagged<StudyList> {
        guard let scope = StudyService.Scope(rawValue: request.queryString("scope") ?? "available") else {
            throw APIError.badRequest("invalid_query", "'scope' is 'available' (public and your own studies) or 'mine'.")
        }
        var result: [StudyInfo] = []
        for listed in try await studies.studies(userId: user.account.id, scope: scope) {
            let questionnaires = StudyPresenter.mayReadContent(listed.study, membership: listed.membership)
                ? try await store.latestQuestionnaires(studyId: listed.study.id) : []
            let arm = listed.membership == .member
                ? try await ArmView.of(store, studyId: listed.study.id, userId: user.account.id, now: environment.clock.now()) : nil
            var info = StudyPresenter.info(listed.study, membership: listed.membership, questionnaires: questionnaires,
                                           consentAgreed: listed.consentAgreed, arm: arm)
            info.screening = try await studies.screeningInfo(listed.study, membership: listed.membership)
            result.append(info)
        }
        return ETagged(StudyList(studies: result))
    }

    private func show(_ context: APIContext) async throws -> ETagged<StudyInfo> {
        let user = context.user
        let id = try studyId(context)
        guard let study = try await store.study(id: id) else { throw APIError.notFound("No study with id '\(id)'.") }
        let membership = try await store.membership(studyId: id, userId: user.account.id)
        let questionnaires = StudyPresenter.mayReadContent(study, membership: membership)
            ? try await store.latestQuestionnaires(studyId: id) : []
        let agreed = try await store.agreedConsentVersions(userId: user.account.id)[id]
        let arm = membership == .member ? try await ArmView.of(store, studyId: id, userId: user.account.id, now: environment.clock.now()) : nil
        var info = StudyPresenter.info(study, membership: membership, questionnaires: questionnaires, consentAgreed: agreed, arm: arm)
        info.screening = try await studies.screeningInfo(study, membership: membership)
        return ETagged(info)
    }

    /// The rules live in ``StudyService`` (shared with the portal); this only speaks JSON.
    private func join(_ request: Request, _ context: APIContext) async throws -> EditedResponse<MembershipResponse> {
        let user = context.user
        let id = try studyId(context)
        let body = try await request.decode(as: JoinStudyRequest.self, context: context)
        let enrolment = try await studies.enrol(userId: user.account.id, studyId: id, password: body.password,
                                                consentVersion: body.consentVersion, site: body.site, screening: body.screening)
        let membership = enrolment.membership
        let screening = enrolment.ineligible.map { ScreeningOutcome(eligible: false, message: $0) }
            ?? (body.screening != nil ? ScreeningOutcome(eligible: true) : nil)
        return EditedResponse(status: membership == .pending ? .accepted : .ok,
                              response: MembershipResponse(studyId: id, membership: membership, screening: screening))
    }

    /// The body (``LeaveStudyRequest``) is optional: without one the answers stay.
    private func leave(_ request: Request, _ context: APIContext) async throws -> MembershipResponse {
        let user = context.user
        let id = try studyId(context)
        let body = try await APIRequestDecoder.decode(LeaveStudyRequest.self, orEmpty: LeaveStudyRequest(), from: request, context: context)
        try await studies.leave(userId: user.account.id, studyId: id, deleteAnswers: body.deleteAnswers)
        return MembershipResponse(studyId: id, membership: .left)
    }

    /// What the caller agreed to in this study, with each text as it was then.
    private func consent(_ context: APIContext) async throws -> ConsentStatus {
        let user = context.user
        let study = try await studies.study(id: try studyId(context))
        let agreements = try await store.consentAgreements(userId: user.account.id, studyId: study.id)
        return ConsentStatus(studyId: study.id, currentVersion: study.consentVersion, agreements: agreements.map {
            ConsentAgreementInfo(studyId: $0.studyId, version: $0.version, agreedAt: Timestamps.format($0.agreedAt), text: $0.text)
        })
    }

    private func agree(_ request: Request, _ context: APIContext) async throws -> ConsentStatus {
        let user = context.user
        let body = try await request.decode(as: ConsentRequest.self, context: context)
        try await studies.agreeToConsent(userId: user.account.id, studyId: try studyId(context), version: body.version)
        return try await consent(context)
    }

    private func studyQuestionnaires(_ context: APIContext) async throws -> ETagged<QuestionnaireList> {
        let user = context.user
        let id = try studyId(context)
        guard let study = try await store.study(id: id) else { throw APIError.notFound("No study with id '\(id)'.") }
        let membership = try await store.membership(studyId: id, userId: user.account.id)
        guard StudyPresenter.mayReadContent(study, membership: membership) else {
            throw APIError(.forbidden, "not_a_member", "Join study '\(id)' to read its questionnaires.")
        }
        let list = QuestionnaireList(questionnaires: try await store.latestQuestionnaires(studyId: id)
            .map { StudyLanguages.served($0, study: study) })
        return ETagged(list)
    }

    /// The questionnaires of every study the caller is a member of, in one list with one ETag: what
    /// the device keeps its study questionnaires from; a randomised member's, those their arm
    /// offers now. Everything that can change (a new version, the module, deactivation, a join or
    /// leave, the arm's day) is in the body, so it changes the tag.
    private func memberQuestionnaires(_ user: AuthenticatedUser) async throws -> ETagged<AssignedQuestionnaireList> {
        let members = try await ArmView.offered(try await store.memberQuestionnaires(userId: user.account.id), store: store,
                                                userId: user.account.id, now: environment.clock.now())
        let list = AssignedQuestionnaireList(questionnaires: members.map {
            AssignedQuestionnaire(id: $0.link.questionnaireId, version: $0.version, studyId: $0.link.studyId,
                                  module: $0.link.module.rawValue, active: $0.link.isActive,
                                  joinedAt: Timestamps.format($0.joinedAt),
                                  definition: StudyLanguages.served($0.definition, languages: $0.studyLanguages))
        })
        return ETagged(list)
    }

    private func questionnaire(_ context: APIContext) async throws -> ETagged<QuestionnaireDocument> {
        let user = context.user
        guard let id = context.parameters.get("id"), let version = context.parameters.get("version", as: Int.self) else {
            throw APIError.notFound("No such questionnaire version.")
        }
        // Another study's questionnaire is answered like an unknown one: a different answer would
        // tell which study a questionnaire id belongs to.
        let unknown = APIError.notFound("No questionnaire '\(id)' in version \(version) that you may read.")
        guard let document = try await store.questionnaire(id: id, version: version),
              let study = try await store.study(id: document.studyId) else { throw unknown }
        let membership = try await store.membership(studyId: study.id, userId: user.account.id)
        guard StudyPresenter.mayReadContent(study, membership: membership) else { throw unknown }
        return ETagged(StudyLanguages.served(document, study: study))
    }
}
