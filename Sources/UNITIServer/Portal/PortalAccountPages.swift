import Foundation
import Hummingbird
import UNITIProtocol
import UNITIText

/// The person's own pages: profile, password, deactivation, studies (join and leave) and the
/// download of everything stored about them.
///
/// Every rule comes from the service the JSON API runs (``AccountService``, ``StudyService``,
/// ``PersonalDataExport``), so the browser and the apps accept and refuse the same things with the
/// same messages; the study-password throttle is one counter for both doors. Every page is in the
/// signed-in group (``RequirePortalSignIn``, else `/login`; ``CSRFCheck`` checks each form);
/// every query reads the session's own account id, never one from the form.
extension PortalRoutes {
    func registerAccountPages(on group: RouterGroup<ParticipantContext>) {
        group.get("profile") { request, context in try await profilePage(request, context) }
        group.post("profile") { request, context in try await saveProfile(request, context) }
        group.post("profile/password") { request, context in try await changePassword(request, context) }
        group.post("profile/deactivate") { request, context in try await deactivate(request, context) }
        group.post("profile/delete") { request, context in try await deleteAccount(request, context) }
        group.post("studies/consent") { request, context in try await agreeToConsent(request, context) }
        group.get("studies") { request, context in try await studiesPage(request, context) }
        group.post("studies/join") { request, context in try await joinStudy(request, context) }
        group.post("studies/leave") { request, context in try await leaveStudy(request, context) }
        group.get("data") { request, context in try await dataPage(request, context) }
        group.get("data/sheets/:id") { request, context in try await sheetPage(request, context) }
        group.get("data/export.json") { _, context in try await exportData(context) }
    }

    /// The posted form of a signed-in person with the visit and the session.
    private func signedInForm(_ request: Request, _ context: ParticipantContext) async throws -> (PortalForm, PortalVisit, PortalSession) {
        (try await PortalForm.read(request), context.visit, context.participant)
    }

    // MARK: Profile

    private func profilePage(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit
        return try page(ProfilePage(context.participant.account, visit.language), visit, notice: notice(request, visit.language))
    }

    private func saveProfile(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let (form, visit, session) = try await signedInForm(request, context)
        guard let gender = Gender(rawValue: form["gender"]) else {
            return try page(ProfilePage(session.account, visit.language, posted: form), visit, status: .unprocessableContent,
                            error: PortalText.text("portal.account.error.gender", visit.language))
        }
        let update = ProfileUpdate(username: form["username"], firstName: form["firstName"], lastName: form["lastName"],
                                   gender: gender, language: form["language"])
        do {
            _ = try await accounts.updateProfile(userId: session.account.id, update: update)
            return visit.redirect(to: "/profile?notice=profileSaved")
        } catch {
            return try failed(ProfilePage(session.account, visit.language, posted: form), visit, error)
        }
    }

    private func changePassword(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let (form, visit, session) = try await signedInForm(request, context)
        var profile = ProfilePage(session.account, visit.language)
        guard form["password"] == form["passwordRepeat"] else {
            profile.passwordError = PortalText.text("portal.error.passwordsDiffer", visit.language)
            return try page(profile, visit, status: .unprocessableContent)
        }
        do {
            try await accounts.changePassword(account: session.account, current: form["currentPassword"], new: form["password"],
                                              keeping: session.id)
            // A new session for the new password: a cookie seen or taken before the change (with
            // the old password, perhaps) opens nothing afterwards.
            let secret = try await sessions.start(userId: session.account.id)
            try await sessions.end(session)
            return visit.redirect(to: "/profile?notice=passwordChangedOthersOut", setting: [sessions.cookie(secret: secret, secure: visit.secure)])
        } catch {
            guard let (status, message) = Self.explain(error, visit.language) else { throw error }
            profile.passwordError = message
            return try page(profile, visit, status: status)
        }
    }

    /// Deactivation needs the password again (a browser left open is not enough), then does
    /// what the API's `deactivate` does: the account is inactive and every session ends.
    private func deactivate(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let (form, visit, session) = try await signedInForm(request, context)
        let password = form["password"]
        guard password.utf8.count <= 1024, await environment.passwords.verify(password, hash: session.account.passwordHash) else {
            var profile = ProfilePage(session.account, visit.language)
            profile.deactivateError = PortalText.text("portal.error.wrong_password", visit.language)
            return try page(profile, visit, status: .forbidden)
        }
        try await accounts.deactivate(userId: session.account.id)
        return visit.redirect(to: "/login?notice=accountDeactivated", setting: [sessions.expiredCookie(secure: visit.secure)])
    }

    /// Deletion needs the password again (checked and throttled as a login), then does what the
    /// API's `account/delete` does: the account and all its data are gone, and so is the session.
    private func deleteAccount(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let (form, visit, session) = try await signedInForm(request, context)
        do {
            try await accounts.deleteAccount(session.account, password: form["password"], client: context.clientAddress)
        } catch {
            guard let (status, message) = Self.explain(error, visit.language) else { throw error }
            var profile = ProfilePage(session.account, visit.language)
            profile.deleteError = message
            return try page(profile, visit, status: status)
        }
        return visit.redirect(to: "/login?notice=accountDeleted", setting: [sessions.expiredCookie(secure: visit.secure)])
    }

    // MARK: Studies

    private func studiesPage(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit, query = request.uri.queryParameters
        // A site's enrolment link (`/studies?study=uniti&site=ulm`) joins at that site.
        let enrolment = query["study"].flatMap { study in query["site"].map { (study: String(study), site: String($0)) } }
        return try page(try await studyList(context.participant, visit, enrolment: enrolment), visit, notice: notice(request, visit.language))
    }

    /// Every study with the person's standing in it (as the API's `available` lists them), each
    /// with the form its access asks for, and a form to join a study by the id the study team gave
    /// out; `failure` puts a message beside one study's form.
    private func studyList(_ session: PortalSession, _ visit: PortalVisit, failure: (studyId: String, message: String)? = nil,
                           enrolment: (study: String, site: String)? = nil) async throws -> StudiesPage {
        let now = environment.clock.now()
        let listed = try await studyService.studies(userId: session.account.id, scope: .available)
        // The site of an enrolment link, when the study has it (an unknown one is left out: the
        // person joins without a site, and the team can place them).
        var enrolmentSite: (String, StudySite)?
        if let enrolment, let site = try await environment.store.sites(studyId: enrolment.study).first(where: { $0.id == enrolment.site }) {
            enrolmentSite = (enrolment.study, site)
        }
        // A member of a trial: the arm's notice and their visits, as the API gives them to the apps.
        let screening = try await environment.store.screeningStudies()
        var trials: [String: ArmView] = [:]
        for entry in listed where entry.membership == .member {
            trials[entry.study.id] = try await ArmView.of(environment.store, studyId: entry.study.id, userId: session.account.id, now: now)
        }
        return StudiesPage(studies: listed.map { entry in
            let study = entry.study, membership = entry.membership
            let open = StudyPresenter.isOpen(study, now: now)
            let mayJoin = open && membership != .member && membership != .pending
            let description = StudyPresenter.mayReadDescription(study, membership: membership)
                ? study.description?.text(in: visit.language, fallback: study.fallbackLanguage) : nil
            let agreed = entry.consentAgreed.map { version in
                PortalText.text("portal.studies.consentAgreed", visit.language, ["version": "\(version)"])
            }
            let trial = trials[study.id]
            let site = enrolmentSite?.0 == study.id && mayJoin ? enrolmentSite?.1 : nil
            // A study that screens is joined from its screening page, which asks what joining asks.
            let screens = mayJoin && screening.contains(study.id)
            let screeningHref = screens ? "/studies/screening?study=\(study.id)" + (site.map { "&site=\($0.id)" } ?? "") : nil
            let visits = (trial?.visits ?? []).map { due in
                let state = due.state(at: now) ?? .upcoming
                let days = [due.opens, due.closes].compactMap { OffsetTimestamp(parsing: $0)?.date }
                return StudiesPage.Visit(
                    id: due.id, title: due.title.text(in: visit.language, fallback: study.fallbackLanguage),
                    window: days.count == 2 ? PortalText.text("portal.studies.visitWindow", visit.language, [
                        "from": String(Timestamps.format(days[0]).prefix(10)), "to": String(Timestamps.format(days[1].addingTimeInterval(-1)).prefix(10)),
                    ]) : "",
                    state: state.rawValue, stateText: PortalText.text("portal.studies.visit.\(state.rawValue)", visit.language),
                    questionnaires: due.questionnaires.joined(separator: ", "))
            }
            return StudiesPage.Study(
                id: study.id,
                title: study.title.text(in: visit.language, fallback: study.fallbackLanguage),
                access: PortalText.text("portal.studies.access.\(study.access.rawValue)", visit.language),
                status: PortalText.text("portal.membership.\(membership.rawValue)", visit.language),
                closed: !open && membership != .member,
                joinPublic: mayJoin && !screens && study.access == .public,
                joinPassword: mayJoin && !screens && study.access == .password,
                joinRequest: mayJoin && !screens && study.access == .byRequest,
                mayLeave: StudyService.mayLeave(study, membership: membership),
                leaveLabel: PortalText.text(membership == .pending ? "portal.studies.withdraw" : "portal.studies.leave", visit.language),
                noLeave: membership == .member && !study.participantsMayLeave,
                description: description?.isEmpty == false ? description : nil,
                studyError: failure?.studyId == study.id ? failure?.message : nil,
                consentHTML: study.consent.map { MarkdownText.html($0.text(in: visit.language, fallback: study.fallbackLanguage), topHeadingLevel: 3) }, consentVersion: study.consentVersion,
                consentNeeded: membership == .member && (study.consentVersion ?? 0) > (entry.consentAgreed ?? 0),
                consentAgreed: membership == .member ? agreed : nil,
                notice: trial?.notice?.text(in: visit.language, fallback: study.fallbackLanguage), visits: visits, hasVisits: !visits.isEmpty,
                site: site?.id, siteText: site.map { PortalText.text("portal.studies.enrolSite", visit.language, ["site": $0.name]) },
                screeningHref: screeningHref)
        })
    }

    private func joinStudy(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let (form, visit, session) = try await signedInForm(request, context)
        let studyId = form["study"]
        let password = form.fields["password"]
        do {
            let standing = try await studyService.join(userId: session.account.id, studyId: studyId, password: password,
                                                       consentVersion: Int(form["consentVersion"]), site: form.fields["site"])
            return visit.redirect(to: standing == .pending ? "/studies?notice=studyRequested" : "/studies?notice=studyJoined")
        } catch let error as APIError where error.code == APIErrorCode.screeningRequired.rawValue {
            // The join-by-id form, for a study that screens: its questions come first.
            let site = form["site"].isEmpty ? "" : "&site=\(form["site"].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            return visit.redirect(to: "/studies/screening?study=\(studyId)\(site)")
        } catch {
            return try await studyFailure(error, studyId, visit, session, besideJoinById: form["form"] == "by-id")
        }
    }

    private func leaveStudy(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let (form, visit, session) = try await signedInForm(request, context)
        let studyId = form["study"]
        do {
            let delete = form["answers"] == "delete"
            try await studyService.leave(userId: session.account.id, studyId: studyId, deleteAnswers: delete)
            return visit.redirect(to: delete ? "/studies?notice=studyLeftDeleted" : "/studies?notice=studyLeft")
        } catch {
            return try await studyFailure(error, studyId, visit, session)
        }
    }

    /// A member agrees to the study's current consent version (the box ticked on the studies page).
    private func agreeToConsent(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let (form, visit, session) = try await signedInForm(request, context)
        let studyId = form["study"]
        do {
            try await studyService.agreeToConsent(userId: session.account.id, studyId: studyId, version: Int(form["consentVersion"]) ?? 0)
            return visit.redirect(to: "/studies?notice=consentAgreed")
        } catch {
            return try await studyFailure(error, studyId, visit, session)
        }
    }

    /// The studies page again with the reason beside the form the person used: the study's own
    /// form in the list, or the join-by-id form (also when the study is not in the list, e.g. an
    /// unknown id), which keeps the id typed; the status is the API's.
    private func studyFailure(_ error: any Error, _ studyId: String, _ visit: PortalVisit, _ session: PortalSession,
                              besideJoinById: Bool = false) async throws -> Response {
        guard let (status, message) = Self.explain(error, visit.language) else { throw error }
        var studies = try await studyList(session, visit, failure: besideJoinById ? nil : (studyId, message))
        if !studies.studies.contains(where: { $0.studyError != nil }) {
            studies.joinError = message
            studies.joinStudyId = studyId
        }
        return try page(studies, visit, status: status)
    }

    // MARK: Data

    private func dataPage(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit, session = context.participant
        let requested = min(PortalPaging.requested(request), 1_000_000)
        func read(_ page: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int) {
            try await environment.store.sheets(userId: session.account.id, offset: (page - 1) * PortalPaging.size, limit: PortalPaging.size)
        }
        var stored = try await read(max(requested, 1))
        let paging = PortalPaging(requested: requested, total: stored.total)
        if paging.number != max(requested, 1) {
            // A page past the end (an old link, a typed number) shows the last one.
            stored = try await read(paging.number)
        }
        var rows: [DataPage.Sheet] = []
        for stored in stored.sheets {
            let sheet = stored.sheet
            rows.append(.init(id: sheet.id.uuidString.lowercased(), title: try await questionnaireTitle(sheet, visit.language),
                              when: sheet.startedAt.minuteText, partial: sheet.isPartial))
        }
        return try self.page(DataPage(sheets: rows, paging: paging.pager(path: "/data", language: visit.language),
                                            downloads: environment.store.modules.parts(PortalPagesProviding.self).flatMap(\.portalDownloads), language: visit.language), visit)
    }

    /// One of the person's own sheets; another person's id is as unknown as a made-up one (404).
    private func sheetPage(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit, session = context.participant
        guard let raw = context.parameters.get("id"), let id = UUID(uuidString: raw),
              let stored = try await environment.store.sheet(userId: session.account.id, id: id) else {
            throw PortalRefusal(status: .notFound, messageKey: "portal.data.noSuchSheet")
        }
        let sheet = stored.sheet
        let document = try await readDocument(sheet, visit.language)
        let definition = document?.definition
        var answers: [SheetPage.Answer] = []
        var shown: Set<String> = []
        for item in definition?.items ?? [] where item.element.isQuestion {
            guard let answer = sheet.answers[item.label] else { continue }
            shown.insert(item.label)
            answers.append(.init(question: item.text?.text(in: visit.language) ?? item.label,
                                 answer: Self.answerText(answer.value, item, visit.language), at: answer.answeredAt.minuteText))
        }
        // Answers the definition does not name (an unknown version) still show, by their label.
        for label in sheet.answers.keys.sorted() where !shown.contains(label) {
            let answer = sheet.answers[label]!
            answers.append(.init(question: label, answer: Self.valueText(answer.value, visit.language), at: answer.answeredAt.minuteText))
        }
        // Just saved: the study's message after saving and the help for a score that reached its
        // threshold; when a safety rule whose alerts the team reviews matches, that the team will look.
        var afterSaving: [String] = []
        if request.uri.queryParameters["saved"] != nil, let document {
            let definition = document.definition
            afterSaving = definition.textsAfterSaving(scores: QuestionnaireScorer.scores(for: definition, answers: sheet.values))
                .map { $0.text(in: visit.language) }
            if try await environment.store.alertRules(studyId: document.studyId)
                .contains(where: { $0.rule.reviewed && $0.rule.matches(sheet, definition: definition) }) {
                afterSaving.append(PortalText.text("portal.alerts.reviewed", visit.language))
            }
        }
        return try page(SheetPage(title: definition?.title.text(in: visit.language) ?? sheet.questionnaireID,
                                  started: sheet.startedAt.minuteText, ended: sheet.endedAt?.minuteText, partial: sheet.isPartial,
                                  answers: answers, afterSaving: afterSaving), visit)
    }

    /// An answer in words where the item has words for it (choices, yes/no), else its value.
    static func answerText(_ value: AnswerValue, _ item: QuestionnaireItem, _ language: String) -> String {
        switch (item.element, value) {
        case (.yesNo, .number(let number)):
            return PortalText.text(number == 0 ? "portal.data.yes" : "portal.data.no", language)
        case (.singleChoice(let options), .number(let number)):
            return options.first { Double($0.value) == number }?.text.text(in: language) ?? valueText(value, language)
        case (.multipleChoice(let options, _, _), .choices(let chosen)):
            return chosen.map { choice in options.first { $0.value == choice }?.text.text(in: language) ?? String(choice) }
                .joined(separator: ", ")
        case (.slider(let range), .number(let number)):
            return range.text(number, in: Language(rawValue: language) ?? .english)
        default:
            return valueText(value, language)
        }
    }

    /// A value as the person reads it: a number with the language's decimal separator (`2,5`).
    static func valueText(_ value: AnswerValue, _ language: String) -> String {
        guard case .number(let number) = value else { return value.description }
        return PortalText.number(number, language)
    }

    package func ownSheets(_ userId: Int64) async throws -> [StoredAnswerSheet] {
        var all: [StoredAnswerSheet] = []
        while true {
            let page = try await environment.store.sheets(userId: userId, offset: all.count, limit: 500)
            all += page.sheets
            if page.sheets.isEmpty || all.count >= page.total { return all }
        }
    }

    private func questionnaireTitle(_ sheet: AnswerSheet, _ language: String) async throws -> String {
        try await readDocument(sheet, language)?.definition.title.text(in: language) ?? sheet.questionnaireID
    }

    /// The version a sheet answers as a reader of `language` reads it (``StudyLanguages``).
    private func readDocument(_ sheet: AnswerSheet, _ language: String) async throws -> QuestionnaireDocument? {
        guard var document = try await environment.store.questionnaire(id: sheet.questionnaireID, version: sheet.questionnaireVersion) else {
            return nil
        }
        if let study = try await environment.store.study(id: document.studyId) { document = StudyLanguages.served(document, study: study) }
        document.definition = document.definition.reading(in: language)
        return document
    }

    /// Everything stored about the person as one JSON file (``PersonalDataExport``).
    private func exportData(_ context: ParticipantContext) async throws -> Response {
        let session = context.participant
        guard let json = try await PersonalDataExport(environment: environment).json(userId: session.account.id) else {
            return Self.toLogin
        }
        let day = Timestamps.format(environment.clock.now()).prefix(10)
        return Response(status: .ok, headers: [
            .contentType: "application/json; charset=utf-8",
            .contentDisposition: "attachment; filename=\"uniti-data-\(day).json\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }
}
