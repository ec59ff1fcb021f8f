import Foundation
import UNITIResources
import HTTPTypes
import Hummingbird
import Synchronization
import UNITIProtocol
import UNITIText

/// The staff console at `/console` (issue 31): study teams run their studies in the browser, on
/// the portal's foundations (server-rendered mustache pages, no inline script, CSRF on every
/// form, strict cookies, ``SecurityHeaders``) but with their own accounts and sessions
/// (``StaffService``, ``StaffSessions``). Every change goes through the service code the
/// `uniti-server` subcommands use (``StudyAdministration``), so a rule holds in both and every
/// change is in the audit trail.
///
/// The routes come in three groups: sign-in and enrolment (no session); the pages behind
/// sign-in (``RequireStaffSignIn``); and the study pages, ``StudyPage``, each behind
/// ``ConsoleStudyAccess`` with the least role it needs, so no handler checks a role itself and a
/// test walks them all.
struct ConsoleRoutes: Sendable {
    let environment: ServerEnvironment
    let csrfKeys: CSRFKeys
    let sessions: StaffSessions
    let templates: Result<PortalTemplates, PortalTemplateError>
    var staff: StaffService { StaffService(environment: environment) }
    var store: ServerStore { environment.store }

    /// - Parameter idle: how long a console session lasts without a page (30 minutes).
    init(environment: ServerEnvironment, idle: TimeInterval = 30 * 60) {
        self.environment = environment
        csrfKeys = CSRFKeys(store: environment.store, clock: environment.clock)
        sessions = StaffSessions(environment: environment, idle: idle)
        templates = Result<PortalTemplates, any Error> { try PortalTemplates(PortalTemplates.shipped, more: [Self.shipped]) }
            .mapError { $0 as? PortalTemplateError ?? PortalTemplateError("\($0)") }
    }

    /// The console's templates (`Resources/Console`, names `console_…`), parsed with the portal's:
    /// the preview renders the portal's own questionnaire page.
    static var shipped: CompiledResources { compiledResources.folder("Console") }

    static var toSignIn: Response { Response(status: .seeOther, headers: [.location: "/console/signin"]) }

    /// The pages of one study (`/console/studies/{id}/…`) with the least role each needs.
    enum StudyPage: CaseIterable, Sendable {
        case overview, participants, decideRequest, data, export, codebook, spssSyntax, adherenceReport, questionnaires, uploadQuestionnaire,
             switchQuestionnaire, preview, submitPreview, questionnaireSettings, saveQuestionnaireSettings, settings, saveSettings, consent, publishConsent,
             team, addTeamMember, removeTeamMember, disableStaff, audit

        var method: HTTPRequest.Method {
            switch self {
            case .decideRequest, .uploadQuestionnaire, .switchQuestionnaire, .submitPreview, .saveQuestionnaireSettings, .saveSettings, .publishConsent,
                 .addTeamMember, .removeTeamMember, .disableStaff: .post
            default: .get
            }
        }

        var path: String {
            switch self {
            case .overview: ""
            case .participants: "participants"
            case .decideRequest: "participants/decide"
            case .data: "data"
            case .export: "data/export"
            case .codebook: "data/codebook.csv"
            case .spssSyntax: "data/answers.sps"
            case .adherenceReport: "data/adherence.csv"
            case .questionnaires, .uploadQuestionnaire: "questionnaires"
            case .switchQuestionnaire: "questionnaires/active"
            case .preview, .submitPreview: "questionnaires/:questionnaire/preview"
            case .questionnaireSettings, .saveQuestionnaireSettings: "questionnaires/:questionnaire/settings"
            case .consent, .publishConsent: "consent"
            case .removeTeamMember: "team/remove"
            case .disableStaff: "team/disable"
            case .settings, .saveSettings: "settings"
            case .team, .addTeamMember: "team"
            case .audit: "audit"
            }
        }

        /// Viewers read; the export, set-up and participants' requests need an editor; the team
        /// and the audit trail an owner.
        var minimum: StudyRole {
            switch self {
            case .overview, .participants, .data: .viewer
            case .decideRequest, .export, .codebook, .spssSyntax, .adherenceReport, .questionnaires, .uploadQuestionnaire, .switchQuestionnaire, .preview, .submitPreview,
                 .questionnaireSettings, .saveQuestionnaireSettings, .settings, .saveSettings, .consent, .publishConsent: .editor
            case .team, .addTeamMember, .removeTeamMember, .disableStaff, .audit: .owner
            }
        }
    }

    func register(on router: Router<ServerRequestContext>) {
        let console = router.group("console")
            .add(middleware: SecurityHeaders())
            .add(middleware: ConsoleVisitMiddleware(routes: self))
            .add(middleware: ConsoleErrorPages(routes: self))
            .add(middleware: CSRFCheck.console(csrfKeys))
        console.get("signin") { request, context in try await showSignIn(request, context) }
        console.post("signin") { request, context in try await signIn(request, context) }
        console.get("enrol") { request, context in try await showEnrolment(request, context) }
        console.post("enrol") { request, context in try await enrol(request, context) }
        let signedIn = console.group().add(middleware: RequireStaffSignIn())
        signedIn.get("") { request, context in try await studies(request, context) }
        signedIn.post("studies") { request, context in try await createStudy(request, context) }
        signedIn.post("signout") { request, context in try await signOut(request, context) }
        signedIn.get("password") { request, context in try await page(ConsolePasswordPage(), context) }
        signedIn.post("password") { request, context in try await changePassword(request, context) }
        for studyPage in StudyPage.allCases {
            signedIn.group("studies/:study").add(middleware: ConsoleStudyAccess(store: store, minimum: studyPage.minimum))
                .on(RouterPath(studyPage.path), method: studyPage.method) { request, context in
                    try await handle(studyPage, request, context)
                }
        }
    }

    private func handle(_ studyPage: StudyPage, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        switch studyPage {
        case .overview: try await overview(context)
        case .participants: try await participants(request, context)
        case .decideRequest: try await decideRequest(request, context)
        case .data: try await data(context)
        case .export: try await export(request, context)
        case .codebook: try await codebook(context)
        case .spssSyntax: try await spssSyntax(context)
        case .adherenceReport: try await adherenceReport(request, context)
        case .questionnaires: try await questionnaires(request, context)
        case .uploadQuestionnaire: try await uploadQuestionnaire(request, context)
        case .switchQuestionnaire: try await switchQuestionnaire(request, context)
        case .preview: try await preview(context)
        case .submitPreview: try await previewSubmission(request, context)
        case .questionnaireSettings: try await questionnaireSettings(request, context)
        case .saveQuestionnaireSettings: try await saveQuestionnaireSettings(request, context)
        case .consent: try await consent(request, context)
        case .publishConsent: try await publishConsent(request, context)
        case .removeTeamMember: try await removeTeamMember(request, context)
        case .disableStaff: try await disableStaff(request, context)
        case .settings: try await settings(context)
        case .saveSettings: try await saveSettings(request, context)
        case .team: try await team(request, context)
        case .addTeamMember: try await addTeamMember(request, context)
        case .audit: try await audit(context)
        }
    }

    // MARK: Rendering

    func page(_ page: some PortalPage, _ context: ServerRequestContext, status: HTTPResponse.Status = .ok,
              notice: String? = nil, error: String? = nil) async throws -> Response {
        let visit = try context.console
        let html = try templates.get().render(page, ConsoleLayout(visit, study: context.consoleStudy, notice: notice, error: error))
        return visit.base.html(html, status: status)
    }

    /// A notice named in the query after a redirect: the text of `console.notice.<name>`, if any.
    func notice(_ request: Request, _ language: String) -> String? {
        guard let name = request.uri.queryParameters["notice"].map(String.init), !name.isEmpty,
              name.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        let text = PortalText.text("console.notice.\(name)", language)
        return text == "console.notice.\(name)" ? nil : text
    }

    /// The line for an error a person can act on (the API code names the string, English text
    /// where there is none), nil for errors that are no fault of theirs.
    static func explain(_ error: any Error, _ language: String) -> (HTTPResponse.Status, String)? {
        switch error {
        case let error as APIError:
            let key = "console.error.\(error.code)"
            let text = PortalText.text(key, language, ["seconds": error.headers["Retry-After"] ?? ""])
            return (error.status, text == key ? error.message : text)
        case StoreConflict.emailTaken: return (.conflict, PortalText.text("console.error.emailTaken", language))
        case StoreConflict.studyExists: return (.conflict, PortalText.text("console.error.studyExists", language))
        default: return nil
        }
    }

    /// The form page again with the one-line reason of a refused step.
    func failed(_ page: some PortalPage, _ context: ServerRequestContext, _ error: any Error) async throws -> Response {
        guard let (status, message) = Self.explain(error, try context.console.language) else { throw error }
        return try await self.page(page, context, status: status, error: message)
    }

    func administration(_ context: ServerRequestContext) throws -> StudyAdministration {
        StudyAdministration(store: store, actor: .staff(try context.staff.member.id), now: environment.clock.now())
    }

    // MARK: Sign-in and enrolment

    private func showSignIn(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let visit = try context.console
        if visit.staff != nil { return visit.base.redirect(to: "/console") }
        return try await page(ConsoleSignInPage(), context, notice: notice(request, visit.language))
    }

    private func signIn(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = try context.console
        do {
            let member = try await staff.signIn(email: form["email"], password: form["password"], code: form["code"], client: context.clientAddress)
            // A new secret at every sign-in: a cookie planted before is worth nothing.
            let secret = try await sessions.start(staffId: member.id)
            return visit.base.redirect(to: "/console", setting: [sessions.cookie(secret: secret, secure: visit.base.secure)])
        } catch {
            return try await failed(ConsoleSignInPage(email: form["email"]), context, error)
        }
    }

    private func signOut(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let visit = try context.console
        try await sessions.end(try context.staff)
        return visit.base.redirect(to: "/console/signin?notice=signedOut", setting: [sessions.expiredCookie(secure: visit.base.secure)])
    }

    /// The enrolment form for the code of the mailed link, with a new secret; without a code,
    /// the form that asks for one.
    private func showEnrolment(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        guard let code = request.uri.queryParameters["code"].map(String.init), !code.isEmpty else {
            return try await page(ConsoleEnrolCodePage(), context)
        }
        do {
            let member = try await staff.enrolling(code: code)
            return try await page(try enrolPage(code: code, member: member, secret: staff.newSecret()), context)
        } catch {
            return try await failed(ConsoleEnrolCodePage(), context, error)
        }
    }

    private func enrolPage(code: String, member: StaffMember, secret: String) throws -> ConsoleEnrolPage {
        let uri = TOTP(secret: Base32.decode(secret) ?? Data()).uri(account: member.email, issuer: StaffService.issuer)
        guard let qr = QRCodeSVG(uri) else { throw PortalTemplateError("the QR code of the enrolment could not be made") }
        let groups = stride(from: 0, to: secret.count, by: 4).map { start in
            String(secret.dropFirst(start).prefix(4))
        }.joined(separator: " ")
        return ConsoleEnrolPage(code: code, name: member.name, email: member.email, secret: secret, secretGroups: groups,
                                qrPath: qr.path, qrSize: qr.size)
    }

    /// Sets password and second factor; the answer shows the recovery codes, this once.
    private func enrol(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request)
        let code = form["code"].trimmingCharacters(in: .whitespacesAndNewlines)
        let language = try context.console.language
        do {
            let member = try await staff.enrolling(code: code)
            let again = try enrolPage(code: code, member: member, secret: form["secret"])
            guard form["password"] == form["passwordRepeat"] else {
                return try await page(again, context, status: .unprocessableContent,
                                      error: PortalText.text("console.error.passwordsDiffer", language))
            }
            do {
                let codes = try await staff.enrol(code: code, password: form["password"], secret: form["secret"], totpCode: form["totp"])
                return try await page(ConsoleRecoveryCodesPage(codes: codes), context)
            } catch {
                return try await failed(again, context, error)
            }
        } catch {
            return try await failed(ConsoleEnrolCodePage(), context, error)
        }
    }

    private func changePassword(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = try context.console
        guard form["password"] == form["passwordRepeat"] else {
            return try await page(ConsolePasswordPage(), context, status: .unprocessableContent,
                                  error: PortalText.text("console.error.passwordsDiffer", visit.language))
        }
        do {
            try await staff.changePassword(try context.staff.member, current: form["current"], new: form["password"])
            return visit.base.redirect(to: "/console/signin?notice=passwordChanged",
                                       setting: [sessions.expiredCookie(secure: visit.base.secure)])
        } catch {
            return try await failed(ConsolePasswordPage(), context, error)
        }
    }

    // MARK: Studies

    /// The studies the member has a role in (an administrator: all, as owner), and for an
    /// administrator the form that creates one.
    private func studies(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let member = try context.staff.member, language = try context.console.language
        let roles = try await store.studyRoles(staffId: member.id)
        let rows = try await store.studies().compactMap { study -> ConsoleStudiesPage.Row? in
            let role: StudyRole? = member.admin ? .owner : roles[study.id]
            guard let role else { return nil }
            return .init(id: study.id, title: study.title.text(in: language), role: PortalText.text("console.role.\(role.rawValue)", language))
        }
        return try await page(ConsoleStudiesPage(studies: rows, admin: member.admin), context, notice: notice(request, language))
    }

    /// An administrator creates a study (not running until its team has set it up) and appoints
    /// its owner by e-mail address.
    private func createStudy(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let member = try context.staff.member
        guard member.admin else { throw ConsoleRefusal(.forbidden, "console.error.role") }
        let form = try await PortalForm.read(request)
        let id = form["id"].trimmingCharacters(in: .whitespaces)
        do {
            guard StudyRules.isValidId(id) else { throw APIError.invalid("invalid_study_id", "A study id is lower-case letters, digits, '-', '_' or '.'.") }
            let title = form["title"].trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty else { throw APIError.invalid("invalid_title", "Give the study a title.") }
            guard let owner = try await store.staffMember(email: form["owner"].trimmingCharacters(in: .whitespaces)) else {
                throw APIError.invalid("unknown_staff", "No staff member has this address; add them with 'uniti-server staff add'.")
            }
            let administration = try administration(context)
            try await administration.create(StudyRecord(id: id, title: LocalizedText(["en": title]), running: false))
            try await administration.setRole(.owner, of: owner, in: id)
            return try context.console.base.redirect(to: "/console/studies/\(id)")
        } catch {
            return try await failed(ConsoleStudiesPage(studies: [], admin: true), context, error)
        }
    }

    /// The study's figures and, over the last ``DayChart/days`` UTC days: sheets per day,
    /// participants over time (members by the day they joined, and their running total), and
    /// adherence per day of the prompts' due times (``ServerStore/adherencePerDay(studyId:from:to:)``).
    private func overview(_ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id, language = try context.console.language, now = environment.clock.now()
        let participants = try await store.studyParticipants(studyId: studyId)
        let members = participants.filter { $0.status == .member }
        let perDay = try await store.sheetsPerDay(studyId: studyId)
        let days = (DayChart.day(now) - DayChart.days + 1)...DayChart.day(now)
        let joined = Dictionary(grouping: members.compactMap { $0.joinedAt.map(DayChart.day) }, by: { $0 }).mapValues { Double($0.count) }
        var total = Double(members.count(where: { ($0.joinedAt.map(DayChart.day) ?? days.lowerBound) < days.lowerBound }))
        var running: [Int: Double] = [:]
        for day in days {
            total += joined[day] ?? 0
            running[day] = total
        }
        let adherence = try await store.adherencePerDay(studyId: studyId, from: Date(timeIntervalSince1970: Double(days.lowerBound) * 86_400),
                                                        to: Date(timeIntervalSince1970: Double(days.upperBound + 1) * 86_400))
        let charts = [
            DayChart(id: "sheets-chart", label: PortalText.text("console.overview.sheetsPerDay", language),
                     bars: Dictionary(perDay.map { ($0.day, Double($0.sheets)) }, uniquingKeysWith: +), today: now),
            DayChart(id: "participants-chart", label: PortalText.text("console.overview.participantsOverTime", language),
                     bars: joined, line: running, today: now),
            DayChart(id: "adherence-chart", label: PortalText.text("console.overview.adherencePerDay", language),
                     bars: adherence.compactMapValues(\.rate), today: now, top: 1, format: { "\(Int(($0 * 100).rounded())) %" }),
        ]
        return try await page(ConsoleOverviewPage(members: members.count, pending: participants.filter { $0.status == .pending }.count,
                                                  sheets: perDay.reduce(0) { $0 + $1.sheets }, charts: charts), context)
    }

    /// Members by pseudonym with their sheets and adherence (flagged below half, or silent for a
    /// week), the open join requests, and those denied (as `join-requests list --all` lists
    /// them; an approved one is a member).
    private func participants(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let current = try context.study, language = try context.console.language
        let now = environment.clock.now()
        let counts = AdherenceTotals()
        try await store.adherence(studyId: current.study.id, from: nil, to: nil) { line in counts.add(line) }
        let adherence = counts.byParticipant
        let everyone = try await store.studyParticipants(studyId: current.study.id)
        let members = everyone.filter { $0.status == .member }.map { person -> ConsoleParticipantsPage.Member in
            let line = adherence[person.pseudonym]
            var flags: [String] = []
            if let rate = line?.counts.rate, rate < 0.5 { flags.append(PortalText.text("console.participants.flagBelow", language)) }
            let heard = [line?.lastSync, person.lastSheetAt].compactMap { $0 }.max()
            if heard.map({ now.timeIntervalSince($0) > 7 * 86_400 }) ?? true {
                flags.append(PortalText.text("console.participants.flagSilent", language))
            }
            return .init(pseudonym: person.pseudonym, joined: person.joinedAt.map(Self.day) ?? "", lastSheet: person.lastSheetAt.map(Self.day) ?? "",
                         consent: person.consentVersion.map(String.init) ?? "", sheets: person.sheets,
                         rate: line?.counts.rate.map { String(format: "%.0f %%", $0 * 100) } ?? "", flags: flags.joined(separator: ", "))
        }
        func requests(_ status: MembershipStatus) -> [ConsoleParticipantsPage.Request] {
            everyone.filter { $0.status == status }.map { .init(pseudonym: $0.pseudonym, requested: $0.requestedAt.map(Self.day) ?? "") }
        }
        return try await page(ConsoleParticipantsPage(members: members, requests: requests(.pending), denied: requests(.denied),
                                                      canDecide: current.role >= .editor), context,
                              notice: notice(request, language))
    }

    static func day(_ date: Date) -> String { String(Timestamps.format(date).prefix(10)) }

    private func decideRequest(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id
        guard let person = try await store.studyParticipants(studyId: studyId).first(where: { $0.pseudonym == form["participant"] }),
              ["approve", "deny"].contains(form["decision"]) else { throw ConsoleRefusal(.unprocessableContent, "console.error.noRequest") }
        guard try await administration(context).decideJoinRequest(studyId: studyId, userId: person.userId,
                                                                  status: form["decision"] == "approve" ? .member : .denied) else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.noRequest")
        }
        return try context.console.base.redirect(to: "/console/studies/\(studyId)/participants?notice=decided")
    }

    // MARK: Data

    private func data(_ context: ServerRequestContext) async throws -> Response {
        let current = try context.study
        let ids = try await store.latestQuestionnaires(studyId: current.study.id).map(\.id)
        return try await page(ConsoleDataPage(questionnaires: ids, canExport: current.role >= .editor), context)
    }

    /// Streams the export in the chosen format and filters: the rows go to a private temporary
    /// file as the store hands them over (the memory of one row), then to the browser in chunks.
    /// The audit line records format, filters and rows before the first byte leaves.
    private func export(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        let query = request.uri.queryParameters
        guard let format = query["format"].flatMap({ ExportCommand.Format(rawValue: String($0)) }) else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.format")
        }
        var filter = ExportFilter()
        if let questionnaire = query["questionnaire"].map(String.init), !questionnaire.isEmpty { filter.questionnaire = questionnaire }
        (filter.from, filter.to) = try Self.days(query)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-console-\(UUID().uuidString)")
        try PrivateFiles.createFolder(directory.path)
        let name: String, type: String, rows: Int
        var files: [URL] = []
        switch format {
        case .csv, .json, .jsonl:
            let file = try ExportFile(directory.appendingPathComponent("out"))
            do { rows = try await StudyExport.rows(of: studyId, from: store, format: format, to: file, filter: filter); try file.finish() } catch {
                file.abandon(); try? FileManager.default.removeItem(at: directory); throw error
            }
            files = [file.destination]
            name = "\(studyId)-answers.\(format.rawValue)"
            type = format == .csv ? "text/csv; charset=utf-8" : format == .json ? "application/json" : "application/x-ndjson"
        case .fhirNDJSON:
            let parts = try ["Patient", "Questionnaire", "QuestionnaireResponse"].map { try ExportFile(directory.appendingPathComponent($0)) }
            do {
                rows = try await StudyExport.fhir(of: studyId, from: store, patients: parts[0], questionnaires: parts[1], responses: parts[2]).responses
                for part in parts { try part.finish() }
            } catch {
                for part in parts { part.abandon() }
                try? FileManager.default.removeItem(at: directory)
                throw error
            }
            files = parts.map(\.destination)
            name = "\(studyId)-fhir.ndjson"
            type = "application/fhir+ndjson"
        }
        try await administration(context).recordExport(studyId: studyId, format: format.rawValue, filters: filter.described, rows: rows)
        let written = files
        let body = ResponseBody { writer in
            defer { try? FileManager.default.removeItem(at: directory) }
            for url in written {
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""], body: body)
    }

    /// The query's `from` and `to` days (`YYYY-MM-DD`, UTC) as the start of the first and the end
    /// of the last; a malformed one is refused with the page's error.
    static func days(_ query: Parameters) throws -> (from: Date?, to: Date?) {
        func day(_ name: String, plus days: Double) throws -> Date? {
            guard let text = query[Substring(name)].map(String.init), !text.isEmpty else { return nil }
            guard let date = Timestamps.parse(text + "T00:00:00Z") else { throw ConsoleRefusal(.unprocessableContent, "console.error.date") }
            return date.addingTimeInterval(days * 86_400)
        }
        return (try day("from", plus: 0), try day("to", plus: 1))
    }

    /// `uniti-server adherence --format csv` from the data page: per participant and
    /// questionnaire the counts and the rate of the prompts due in the chosen days, flagged as the
    /// participants page flags them (below 50 %, silent for 7 days); in the audit trail as a
    /// download. A line per participant and questionnaire (a study's tens of thousands at most).
    private func adherenceReport(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        var filter = ExportFilter()
        (filter.from, filter.to) = try Self.days(request.uri.queryParameters)
        let (from, to) = (filter.from, filter.to)
        let now = environment.clock.now()
        let lines = Mutex<[String]>([StudyExport.csvLine(AdherenceCommand.Line.header)])
        try await AdherenceCommand.Line.report(of: studyId, in: store, from: from, to: to) { line in
            let cells = AdherenceCommand.Line(line, below: 0.5, silent: 7 * 86_400, now: now).cells
            lines.withLock { $0.append(StudyExport.csvLine(cells)) }
        }
        let text = lines.withLock { $0.joined() }
        try await administration(context).recordExport(studyId: studyId, format: "adherence-csv", filters: filter.described,
                                                        rows: lines.withLock { $0.count } - 1)
        return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8",
                                               .contentDisposition: "attachment; filename=\"\(studyId)-adherence.csv\""],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The codebook of the study's questionnaires, every version (``Codebook``), as a download of its own; in the audit trail as every download is (issue
    /// 31), its rows the items it describes, though it holds no participant's data.
    private func codebook(_ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        let documents = try await store.questionnaires(studyId: studyId)
        let text = Codebook.csv(documents)
        try await administration(context).recordExport(studyId: studyId, format: "codebook", filters: [:],
                                                        rows: documents.reduce(0) { $0 + $1.definition.items.count { $0.element.isQuestion } })
        return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8",
                                               .contentDisposition: "attachment; filename=\"\(studyId)-codebook.csv\""],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// SPSS syntax that reads the CSV export with the codebook's types and value labels
    /// (``SPSSSyntax``); in the audit trail as the other downloads are, its rows the items it
    /// makes variables of.
    private func spssSyntax(_ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        let documents = try await store.questionnaires(studyId: studyId)
        let text = SPSSSyntax.syntax(csv: "\(studyId)-answers.csv", documents)
        try await administration(context).recordExport(studyId: studyId, format: "spss-syntax", filters: [:], rows: SPSSSyntax.items(documents).count)
        return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8",
                                               .contentDisposition: "attachment; filename=\"\(studyId)-answers.sps\""],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: Questionnaires

    private func questionnaires(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try await page(questionnairesPage(try context.study.study.id, try context.console.language), context,
                       notice: notice(request, try context.console.language))
    }

    private func questionnairesPage(_ studyId: String, _ language: String) async throws -> ConsoleQuestionnairesPage {
        let links = try await store.questionnaireLinks(studyId: studyId)
        let rows = try await store.latestQuestionnaires(studyId: studyId).map { document in
            let link = links.first { $0.questionnaireId == document.id }
            return ConsoleQuestionnairesPage.Row(id: document.id, version: document.version, title: document.definition.title.text(in: language),
                                                 module: link?.module.rawValue ?? "",
                                                 kind: PortalText.text("console.questionnaires.kind.\(document.definition.kind.rawValue)", language),
                                                 active: link?.deactivatedAt == nil)
        }
        return ConsoleQuestionnairesPage(questionnaires: rows, modules: ModuleCatalog.ids.map {
            .init(value: $0.rawValue, label: PortalText.text("console.module.\($0.rawValue)", language), chosen: false)
        })
    }

    /// A definition pasted into the form, checked by the validator the CLI uses: every problem
    /// is listed with its path, and nothing is stored until there is none.
    private func uploadQuestionnaire(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id, language = try context.console.language
        var shown = try await questionnairesPage(studyId, language)
        shown.definition = form["definition"]
        switch QuestionnaireValidator.validate(data: Data(form["definition"].utf8)) {
        case .failure(let error):
            shown.problems = [error.message]
        case .success(let (definition, problems)):
            shown.problems = problems.map { "\($0)" }
            if problems.isEmpty {
                do {
                    // The module that presents it, as `questionnaire import --module`; none chosen: the rule the CLI follows.
                    let module = try form["module"].isEmpty ? nil : StudyRules.knownModule(form["module"])
                    _ = try await administration(context).addQuestionnaire(
                        QuestionnaireDocument(id: definition.id, version: definition.version, studyId: studyId, definition: definition), module: module)
                    return try context.console.base.redirect(to: "/console/studies/\(studyId)/questionnaires?notice=questionnaireStored")
                } catch let error as APIError {
                    shown.problems = [error.message]
                }
            }
        }
        return try await page(shown, context, status: .unprocessableContent, error: PortalText.text("console.error.questionnaire", language))
    }

    private func switchQuestionnaire(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id
        guard try await administration(context).setQuestionnaireActive(id: form["questionnaire"], studyId: studyId,
                                                                       active: form["active"] == "true") != nil else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        return try context.console.base.redirect(to: "/console/studies/\(studyId)/questionnaires")
    }

    /// The newest version as a participant sees it: the portal's own page, template and layout
    /// (the layout of a visitor: the preview has no participant), every item on one page with
    /// its `showIf` live.
    private func preview(_ context: ServerRequestContext) async throws -> Response {
        try await previewPage(try await questionnaire(context), context)
    }

    /// A preview submitted: read and checked exactly as the portal reads and checks a
    /// participant's finished form (``PortalAnswerForm``, then the shared ``AnswerSheetValidator``
    /// over the whole sheet), shown again with each problem beside its item, or with the answers
    /// a participant's sheet would hold. Nothing is stored: this is no participant's sheet.
    private func previewSubmission(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), document = try await questionnaire(context), language = try context.console.language
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

    private func previewPage(_ document: QuestionnaireDocument, _ context: ServerRequestContext, shown: [String: AnswerValue] = [:],
                             problems: [String: PortalAnswerProblem] = [:], status: HTTPResponse.Status = .ok,
                             notice: String? = nil, error: String? = nil) async throws -> Response {
        let visit = try context.console.base, definition = document.definition
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

    // MARK: Settings

    private func settings(_ context: ServerRequestContext) async throws -> Response {
        try await page(settingsPage(try context.study.study, try context.console.language), context)
    }

    private func settingsPage(_ study: StudyRecord, _ language: String) -> ConsoleSettingsPage {
        ConsoleSettingsPage(
            titleEn: study.title.values["en"] ?? "", titleDe: study.title.values["de"] ?? "",
            descriptionEn: study.description?.values["en"] ?? "", descriptionDe: study.description?.values["de"] ?? "",
            accesses: StudyAccess.allCases.map { .init(value: $0.rawValue, label: PortalText.text("console.access.\($0.rawValue)", language),
                                                        chosen: $0 == study.access) },
            running: study.running, mayLeave: study.participantsMayLeave, rewards: study.rewards,
            starts: study.startsAt.map(Self.day) ?? "", ends: study.endsAt.map(Self.day) ?? "",
            schedules: study.schedules.flatMap { try? JSONCoding.string($0) } ?? "",
            modules: ModuleCatalog.ids.map { .init(value: $0.rawValue, label: PortalText.text("console.module.\($0.rawValue)", language),
                                                   chosen: study.modules.contains($0)) })
    }

    private func saveSettings(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), before = try context.study.study, language = try context.console.language
        var study = before
        do {
            func text(_ name: String) -> LocalizedText? {
                let values = ["en": form["\(name)En"], "de": form["\(name)De"]].compactMapValues {
                    let trimmed = $0.trimmingCharacters(in: .whitespacesAndNewlines)
                    return trimmed.isEmpty ? nil : trimmed
                }
                return values.isEmpty ? nil : LocalizedText(values)
            }
            guard let title = text("title") else { throw APIError.invalid("invalid_title", "Give the study a title.") }
            study.title = title
            study.description = text("description")
            guard let access = StudyAccess(rawValue: form["access"]) else { throw APIError.invalid("invalid_access", "Choose how participants join.") }
            study.access = access
            if !form["password"].isEmpty {
                guard form["password"].count >= StudyRules.minimumPasswordLength else {
                    throw APIError.invalid("weak_study_password", "A study password needs at least \(StudyRules.minimumPasswordLength) characters.")
                }
                study.passwordHash = await environment.passwords.hash(form["password"])
                study.passwordMinimumLength = StudyRules.minimumPasswordLength
            }
            if access == .password && study.passwordHash == nil {
                throw APIError.invalid("weak_study_password", "A password study needs a password.")
            }
            study.running = form["running"] == "on"
            study.participantsMayLeave = form["mayLeave"] == "on"
            study.rewards = form["rewards"] == "on"
            func day(_ name: String) throws -> Date? {
                guard !form[name].isEmpty else { return nil }
                guard let date = Timestamps.parse(form[name] + "T00:00:00Z") else { throw APIError.invalid("invalid_date", "Give dates as YYYY-MM-DD.") }
                return date
            }
            study.startsAt = try day("starts")
            study.endsAt = try day("ends")
            if let start = study.startsAt, let end = study.endsAt, end <= start {
                throw APIError.invalid("invalid_dates", "The end must be after the start.")
            }
            study.modules = try StudyRules.enabledModules(form.fields.keys.filter { $0.hasPrefix("module-") }.map { String($0.dropFirst(7)) }.sorted())
            // The study's schedules as `study update --schedules FILE` takes them: any JSON value, or none.
            let schedules = form["schedules"].trimmingCharacters(in: .whitespacesAndNewlines)
            if schedules.isEmpty {
                study.schedules = nil
            } else {
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(schedules.utf8)) else {
                    throw APIError.invalid("invalid_schedules", "The schedules are not JSON.")
                }
                study.schedules = value
            }
            try await administration(context).update(study, from: before)
            return try context.console.base.redirect(to: "/console/studies/\(study.id)/settings?notice=saved")
        } catch {
            return try await failed(settingsPage(study, language), context, error)
        }
    }

    // MARK: Team and audit

    private func team(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try await page(teamPage(try context.study.study.id, try context.console.language), context,
                       notice: notice(request, try context.console.language))
    }

    func teamPage(_ studyId: String, _ language: String) async throws -> ConsoleTeamPage {
        ConsoleTeamPage(members: try await store.studyTeam(studyId: studyId).map {
            .init(id: $0.member.id, name: $0.member.name, email: $0.member.email, role: PortalText.text("console.role.\($0.role.rawValue)", language))
        })
    }

    /// An owner adds a staff member by address with a role (or changes the role they have).
    private func addTeamMember(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id
        do {
            guard let role = StudyRole(rawValue: form["role"]) else { throw APIError.invalid("invalid_role", "Choose owner, editor or viewer.") }
            let email = form["email"].trimmingCharacters(in: .whitespaces).lowercased()
            let member: StaffMember
            if let known = try await store.staffMember(email: email) {
                member = known
            } else {
                // Someone new to the console: an account without any other right, and the
                // enrolment link by mail (what `staff add` does), when the owner gives a name.
                let name = form["name"].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else {
                    throw APIError.invalid("unknown_staff", "No staff member has this address; give their name to invite them.")
                }
                let added = try await staff.add(name: name, email: email, admin: false, by: .staff(try context.staff.member.id))
                environment.mail.enqueue(added.mail)
                guard let invited = try await store.staffMember(id: added.id) else { throw APIError.invalid("unknown_staff", "") }
                member = invited
            }
            try await administration(context).setRole(role, of: member, in: studyId)
            return try context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=teamChanged")
        } catch {
            return try await failed(teamPage(studyId, try context.console.language), context, error)
        }
    }

    private func audit(_ context: ServerRequestContext) async throws -> Response {
        let lines = try await store.auditTrail(studyId: try context.study.study.id).map {
            ConsoleAuditPage.Line(at: Timestamps.format($0.at), who: $0.actorText, action: $0.action,
                                  detail: (try? JSONCoding.string($0.detail)) ?? "")
        }
        return try await page(ConsoleAuditPage(lines: lines), context)
    }
}

/// Adherence lines summed per participant over the study's questionnaires (the store hands them
/// over one at a time, on its reading thread).
final class AdherenceTotals: Sendable {
    struct Total: Sendable {
        var counts = AdherenceCounts()
        var lastSync: Date?
    }

    private let totals = Mutex<[String: Total]>([:])

    func add(_ line: ServerStore.AdherenceLine) {
        totals.withLock { totals in
            var total = totals[line.participant] ?? Total()
            total.counts.add(line.counts)
            total.lastSync = [total.lastSync, line.lastSync].compactMap { $0 }.max()
            totals[line.participant] = total
        }
    }

    var byParticipant: [String: Total] { totals.withLock { $0 } }
}

/// What goes wrong below a console route, as a console page in the member's language.
struct ConsoleErrorPages: RouterMiddleware {
    let routes: ConsoleRoutes

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        let language = PortalRoutes.language(request)
        do {
            return try await next(request, context)
        } catch let refusal as ConsoleRefusal {
            return try await errorPage(context, refusal.status, PortalText.text(refusal.messageKey, language))
        } catch {
            if let (status, message) = ConsoleRoutes.explain(error, language) { return try await errorPage(context, status, message) }
            if let error = error as? any HTTPResponseError, error.status.code < 500 { throw error }
            context.logger.error("console request failed: \(String(describing: error))")
            return try await errorPage(context, .internalServerError, PortalText.text("console.error.internal", language))
        }
    }

    /// The error page; a study page's error page shows no study tabs (the study may be out of reach).
    private func errorPage(_ context: ServerRequestContext, _ status: HTTPResponse.Status, _ message: String) async throws -> Response {
        var context = context
        context.consoleStudy = nil
        return try await routes.page(ConsoleErrorPage(), context, status: status, error: message)
    }
}
