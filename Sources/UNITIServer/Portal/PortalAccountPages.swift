import Foundation
import Hummingbird
import UNITIProtocol

/// The person's own pages: profile, password, deactivation, studies (join and leave) and the
/// download of everything stored about them.
///
/// Every rule comes from the service the JSON API runs (``AccountService``, ``StudyService``,
/// ``PersonalDataExport``), so the browser and the apps accept and refuse the same things with the
/// same messages; the study-password throttle is one counter for both doors. Every page needs a
/// session (``signedIn(_:)``, else `/login`); every changing form carries the CSRF field
/// (``checkedForm(_:)``); every query reads the session's own account id, never one from the form.
extension PortalRoutes {
    func registerAccountPages(on group: RouterGroup<ServerRequestContext>) {
        group.get("profile") { request, _ in try await profilePage(request) }
        group.post("profile") { request, _ in try await saveProfile(request) }
        group.post("profile/password") { request, _ in try await changePassword(request) }
        group.post("profile/deactivate") { request, _ in try await deactivate(request) }
        group.get("studies") { request, _ in try await studiesPage(request) }
        group.post("studies/join") { request, _ in try await joinStudy(request) }
        group.post("studies/leave") { request, _ in try await leaveStudy(request) }
        group.get("data") { request, _ in try await dataPage(request) }
        group.get("data/sheets/:id") { request, context in try await sheetPage(request, context) }
        group.get("data/export.json") { request, _ in try await exportData(request) }
        group.get("data/record.fhir.json") { request, _ in try await exportFHIR(request) }
    }

    static var toLogin: Response { Response(status: .seeOther, headers: [.location: "/login"]) }

    /// A posted form of a logged-in person (CSRF checked), or nil when the session is gone.
    private func signedInForm(_ request: Request) async throws -> (PortalForm, PortalVisit, PortalSession)? {
        let (form, visit) = try await checkedForm(request)
        guard let session = visit.session else { return nil }
        return (form, visit, session)
    }

    // MARK: Profile

    private func profilePage(_ request: Request) async throws -> Response {
        guard let (visit, session) = try await signedIn(request) else { return Self.toLogin }
        return try page("profile", visit, profileValues(session.account, visit).merging(notice(request, visit.language)) { $1 })
    }

    /// The profile form filled from the account (or from what was just posted, after an error).
    private func profileValues(_ account: UserAccount, _ visit: PortalVisit, posted: PortalForm? = nil) -> [String: Any] {
        let gender = posted.map { $0["gender"] } ?? account.gender.rawValue
        let language = posted.map { $0["language"] } ?? account.language
        return [
            "username": posted.map { $0["username"] } ?? account.username,
            "email": account.email,
            "firstName": posted.map { $0["firstName"] } ?? account.firstName ?? "",
            "lastName": posted.map { $0["lastName"] } ?? account.lastName ?? "",
            "genders": Gender.allCases.map { value -> [String: Any] in
                ["value": value.rawValue, "name": PortalText.text("portal.account.gender.\(value.rawValue)", visit.language),
                 "selected": value.rawValue == gender]
            },
            "accountLanguages": PortalText.languages.map { code -> [String: Any] in
                ["code": code, "name": PortalText.text("portal.language.\(code)", code), "selected": code == language]
            },
        ]
    }

    private func saveProfile(_ request: Request) async throws -> Response {
        guard let (form, visit, session) = try await signedInForm(request) else { return Self.toLogin }
        guard let gender = Gender(rawValue: form["gender"]) else {
            return try page("profile", visit, status: .unprocessableContent, profileValues(session.account, visit, posted: form)
                .merging(["error": PortalText.text("portal.account.error.gender", visit.language)]) { $1 })
        }
        let update = ProfileUpdate(username: form["username"], firstName: form["firstName"], lastName: form["lastName"],
                                   gender: gender, language: form["language"])
        do {
            _ = try await accounts.updateProfile(userId: session.account.id, update: update)
            return visit.redirect(to: "/profile?notice=profileSaved")
        } catch {
            return try failed("profile", visit, error, profileValues(session.account, visit, posted: form))
        }
    }

    private func changePassword(_ request: Request) async throws -> Response {
        guard let (form, visit, session) = try await signedInForm(request) else { return Self.toLogin }
        let values = profileValues(session.account, visit)
        guard form["password"] == form["passwordRepeat"] else {
            return try page("profile", visit, status: .unprocessableContent,
                            values.merging(["passwordError": PortalText.text("portal.error.passwordsDiffer", visit.language)]) { $1 })
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
            return try page("profile", visit, status: status, values.merging(["passwordError": message]) { $1 })
        }
    }

    /// Deactivation needs the password again (a browser left open is not enough), then does
    /// what the API's `deactivate` does: the account is inactive and every session ends.
    private func deactivate(_ request: Request) async throws -> Response {
        guard let (form, visit, session) = try await signedInForm(request) else { return Self.toLogin }
        let password = form["password"]
        guard password.utf8.count <= 1024, await environment.passwords.verify(password, hash: session.account.passwordHash) else {
            return try page("profile", visit, status: .forbidden, profileValues(session.account, visit).merging(
                ["deactivateError": PortalText.text("portal.error.wrong_password", visit.language)]) { $1 })
        }
        try await accounts.deactivate(userId: session.account.id)
        return visit.redirect(to: "/login?notice=accountDeactivated", setting: [sessions.expiredCookie(secure: visit.secure)])
    }

    // MARK: Studies

    private func studiesPage(_ request: Request) async throws -> Response {
        guard let (visit, session) = try await signedIn(request) else { return Self.toLogin }
        return try page("studies", visit, try await studyValues(session, visit).merging(notice(request, visit.language)) { $1 })
    }

    /// Every study with the person's standing in it (as the API's `available` lists them), each
    /// with the form its access asks for, and a form to join a study by the id the study team gave
    /// out; `failure` puts a message beside one study's form.
    private func studyValues(_ session: PortalSession, _ visit: PortalVisit,
                             failure: (studyId: String, message: String)? = nil) async throws -> [String: Any] {
        let now = environment.clock.now()
        let listed = try await studyService.studies(userId: session.account.id, scope: .available)
        let rows: [[String: Any]] = listed.map { entry in
            let study = entry.study, membership = entry.membership
            let open = StudyPresenter.isOpen(study, now: now)
            let mayJoin = open && membership != .member && membership != .pending
            var row: [String: Any] = [
                "id": study.id,
                "title": study.title.text(in: visit.language),
                "access": PortalText.text("portal.studies.access.\(study.access.rawValue)", visit.language),
                "status": PortalText.text("portal.membership.\(membership.rawValue)", visit.language),
                "member": membership == .member,
                "pending": membership == .pending,
                "closed": !open && membership != .member,
                "joinPublic": mayJoin && study.access == .public,
                "joinPassword": mayJoin && study.access == .password,
                "joinRequest": mayJoin && study.access == .byRequest,
                "mayLeave": StudyService.mayLeave(study, membership: membership),
                "leaveLabel": PortalText.text(membership == .pending ? "portal.studies.withdraw" : "portal.studies.leave", visit.language),
                "noLeave": membership == .member && !study.participantsMayLeave,
            ]
            if StudyPresenter.mayReadDescription(study, membership: membership),
               let description = study.description?.text(in: visit.language), !description.isEmpty {
                row["description"] = description
            }
            if let failure, failure.studyId == study.id { row["studyError"] = failure.message }
            return row
        }
        return ["studies": rows, "hasStudies": !rows.isEmpty]
    }

    private func joinStudy(_ request: Request) async throws -> Response {
        guard let (form, visit, session) = try await signedInForm(request) else { return Self.toLogin }
        let studyId = form["study"]
        let password = form.fields["password"]
        do {
            let standing = try await studyService.join(userId: session.account.id, studyId: studyId, password: password)
            return visit.redirect(to: standing == .pending ? "/studies?notice=studyRequested" : "/studies?notice=studyJoined")
        } catch {
            return try await studyFailure(error, studyId, visit, session, besideJoinById: form["form"] == "by-id")
        }
    }

    private func leaveStudy(_ request: Request) async throws -> Response {
        guard let (form, visit, session) = try await signedInForm(request) else { return Self.toLogin }
        let studyId = form["study"]
        do {
            try await studyService.leave(userId: session.account.id, studyId: studyId)
            return visit.redirect(to: "/studies?notice=studyLeft")
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
        var values = try await studyValues(session, visit, failure: besideJoinById ? nil : (studyId, message))
        let shown = (values["studies"] as? [[String: Any]])?.contains { $0["studyError"] != nil } ?? false
        if !shown {
            values["joinError"] = message
            values["joinStudyId"] = studyId
        }
        return try page("studies", visit, status: status, values)
    }

    // MARK: Data

    private func dataPage(_ request: Request) async throws -> Response {
        guard let (visit, session) = try await signedIn(request) else { return Self.toLogin }
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
        var rows: [[String: Any]] = []
        for stored in stored.sheets {
            let sheet = stored.sheet
            rows.append([
                "id": sheet.id.uuidString.lowercased(),
                "title": try await questionnaireTitle(sheet, visit.language),
                "when": sheet.startedAt.minuteText,
                "partial": sheet.isPartial,
            ])
        }
        var values = paging.values(path: "/data", language: visit.language)
        values["sheets"] = rows
        values["hasSheets"] = !rows.isEmpty
        return try self.page("data", visit, values)
    }

    /// One of the person's own sheets; another person's id is as unknown as a made-up one (404).
    private func sheetPage(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        guard let (visit, session) = try await signedIn(request) else { return Self.toLogin }
        guard let raw = context.parameters.get("id"), let id = UUID(uuidString: raw),
              let stored = try await environment.store.sheet(userId: session.account.id, id: id) else {
            throw PortalRefusal(status: .notFound, messageKey: "portal.data.noSuchSheet")
        }
        let sheet = stored.sheet
        let definition = try await environment.store.questionnaire(id: sheet.questionnaireID, version: sheet.questionnaireVersion)?.definition
        var answers: [[String: Any]] = []
        var shown: Set<String> = []
        for item in definition?.items ?? [] where item.element.isQuestion {
            guard let answer = sheet.answers[item.label] else { continue }
            shown.insert(item.label)
            answers.append(["question": item.text?.text(in: visit.language) ?? item.label,
                            "answer": Self.answerText(answer.value, item, visit.language), "at": answer.answeredAt.minuteText])
        }
        // Answers the definition does not name (an unknown version) still show, by their label.
        for label in sheet.answers.keys.sorted() where !shown.contains(label) {
            let answer = sheet.answers[label]!
            answers.append(["question": label, "answer": answer.value.description, "at": answer.answeredAt.minuteText])
        }
        var values: [String: Any] = [
            "title": definition?.title.text(in: visit.language) ?? sheet.questionnaireID,
            "started": sheet.startedAt.minuteText, "study": stored.studyId,
            "answers": answers, "hasAnswers": !answers.isEmpty, "partial": sheet.isPartial,
        ]
        if let ended = sheet.endedAt { values["ended"] = ended.minuteText }
        return try page("sheet", visit, values)
    }

    /// An answer in words where the item has words for it (choices, yes/no), else its value.
    private static func answerText(_ value: AnswerValue, _ item: QuestionnaireItem, _ language: String) -> String {
        switch (item.element, value) {
        case (.yesNo, .number(let number)):
            return PortalText.text(number == 0 ? "portal.data.yes" : "portal.data.no", language)
        case (.singleChoice(let options), .number(let number)):
            return options.first { Double($0.value) == number }?.text.text(in: language) ?? value.description
        case (.multipleChoice(let options, _, _), .choices(let chosen)):
            return chosen.map { choice in options.first { $0.value == choice }?.text.text(in: language) ?? String(choice) }
                .joined(separator: ", ")
        default:
            return value.description
        }
    }

    func ownSheets(_ userId: Int64) async throws -> [StoredAnswerSheet] {
        var all: [StoredAnswerSheet] = []
        while true {
            let page = try await environment.store.sheets(userId: userId, offset: all.count, limit: 500)
            all += page.sheets
            if page.sheets.isEmpty || all.count >= page.total { return all }
        }
    }

    private func questionnaireTitle(_ sheet: AnswerSheet, _ language: String) async throws -> String {
        try await environment.store.questionnaire(id: sheet.questionnaireID, version: sheet.questionnaireVersion)?
            .definition.title.text(in: language) ?? sheet.questionnaireID
    }

    /// Everything stored about the person as one JSON file (``PersonalDataExport``).
    private func exportData(_ request: Request) async throws -> Response {
        guard let (_, session) = try await signedIn(request) else { return Self.toLogin }
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
