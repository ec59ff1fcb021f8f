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
/// The pages are one table, ``ConsolePage``: each page's route, who may open it (anyone, a
/// signed-in member, an administrator, or a study's member with the least role it needs) and the
/// study tab it is. The handlers here parse a form or a query, call the services
/// (``StudyAdministration``, ``StudyTeam``, ``StudyExports``, ``StaffService``), and render what
/// comes back; the rules are the services'.
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

    /// Every page of the table (``ConsolePage/all``) behind the gate its access names: sign-in
    /// and enrolment for anyone, the rest behind sign-in (``RequireStaffSignIn``), an
    /// administrator's behind ``RequireAdministrator``, a study's behind ``ConsoleStudyAccess``
    /// with its least role. No handler checks a role itself, and a test walks them all.
    func register(on router: Router<ServerRequestContext>) {
        let console = router.group("console")
            .add(middleware: SecurityHeaders())
            .add(middleware: ConsoleVisitMiddleware(routes: self))
            .add(middleware: ConsoleErrorPages(routes: self))
            .add(middleware: CSRFCheck.console(csrfKeys))
        let signedIn = console.group().add(middleware: RequireStaffSignIn())
        for page in ConsolePage.all {
            let group: RouterGroup<ServerRequestContext> = switch page.access {
            case .visitor: console
            case .signedIn: signedIn
            case .administrator: signedIn.group().add(middleware: RequireAdministrator())
            case .study(let minimum): signedIn.group().add(middleware: ConsoleStudyAccess(store: store, minimum: minimum))
            }
            group.on(RouterPath(page.path), method: page.method) { request, context in
                try await page.handle(self, request, context)
            }
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

    /// The rule book, acting as the signed-in member.
    func administration(_ context: ServerRequestContext) throws -> StudyAdministration {
        StudyAdministration(store: store, actor: .staff(try context.staff.member.id), now: environment.clock.now(),
                            passwords: environment.passwords)
    }

    func team(_ context: ServerRequestContext) throws -> StudyTeam {
        StudyTeam(administration: try administration(context), environment: environment)
    }

    func exports(_ context: ServerRequestContext) throws -> StudyExports {
        StudyExports(administration: try administration(context))
    }

    // MARK: Sign-in and enrolment

    func showSignIn(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let visit = try context.console
        if visit.staff != nil { return visit.base.redirect(to: "/console") }
        return try await page(ConsoleSignInPage(), context, notice: notice(request, visit.language))
    }

    func signIn(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
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

    func signOut(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let visit = try context.console
        try await sessions.end(try context.staff)
        return visit.base.redirect(to: "/console/signin?notice=signedOut", setting: [sessions.expiredCookie(secure: visit.base.secure)])
    }

    /// The enrolment form for the code of the mailed link, with a new secret; without a code,
    /// the form that asks for one.
    func showEnrolment(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
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

    func enrolPage(code: String, member: StaffMember, secret: String) throws -> ConsoleEnrolPage {
        let uri = TOTP(secret: Base32.decode(secret) ?? Data()).uri(account: member.email, issuer: StaffService.issuer)
        guard let qr = QRCodeSVG(uri) else { throw PortalTemplateError("the QR code of the enrolment could not be made") }
        let groups = stride(from: 0, to: secret.count, by: 4).map { start in
            String(secret.dropFirst(start).prefix(4))
        }.joined(separator: " ")
        return ConsoleEnrolPage(code: code, name: member.name, email: member.email, secret: secret, secretGroups: groups,
                                qrPath: qr.path, qrSize: qr.size)
    }

    /// Sets password and second factor; the answer shows the recovery codes, this once.
    func enrol(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
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

    func changePassword(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
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

    /// The studies the member has a role in (an administrator: all, as owner), the invitations
    /// they may accept or decline, and for an administrator the form that creates a study.
    func studies(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try await page(studiesPage(try context.staff.member, try context.console.language), context, notice: notice(request, try context.console.language))
    }

    func studiesPage(_ member: StaffMember, _ language: String) async throws -> ConsoleStudiesPage {
        let roles = try await store.studyRoles(staffId: member.id)
        let all = try await store.studies()
        let rows = all.compactMap { study -> ConsoleStudiesPage.Row? in
            guard let role = ConsoleAccess.role(of: member, stored: roles[study.id]) else { return nil }
            return .init(id: study.id, title: study.title.text(in: language), role: PortalText.text("console.role.\(role.rawValue)", language))
        }
        let titles = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.title.text(in: language)) })
        let invitations = try await store.invitations(staffId: member.id).map {
            ConsoleStudiesPage.Invitation(id: $0.studyId, title: titles[$0.studyId] ?? $0.studyId,
                                          role: PortalText.text("console.role.\($0.role.rawValue)", language))
        }
        return ConsoleStudiesPage(studies: rows, invitations: invitations, admin: ConsolePage.createStudy.allows(member))
    }

    /// An administrator creates a study (not running until its team has set it up) and appoints
    /// its owner by e-mail address.
    func createStudy(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), member = try context.staff.member, language = try context.console.language
        let id = form["id"].trimmingCharacters(in: .whitespaces)
        do {
            let settings = StudySettings(title: LocalizedText(["en": form["title"]]), running: false)
            try await administration(context).create(id, settings, owner: form["owner"])
            return try context.console.base.redirect(to: "/console/studies/\(id)")
        } catch {
            return try await failed(studiesPage(member, language), context, error)
        }
    }

    /// The invited member accepts or declines an invitation to a study's team.
    func answerInvitation(_ request: Request, _ context: ServerRequestContext, accept: Bool) async throws -> Response {
        let form = try await PortalForm.read(request), member = try context.staff.member, language = try context.console.language
        let team = try team(context)
        do {
            if accept {
                try await team.accept(studyId: form["study"], by: member)
            } else {
                try await team.decline(studyId: form["study"], by: member)
            }
            return try context.console.base.redirect(to: "/console?notice=\(accept ? "invitationAccepted" : "invitationDeclined")")
        } catch {
            return try await failed(studiesPage(member, language), context, error)
        }
    }

    /// The study's figures and, over the last ``DayChart/days`` UTC days: sheets per day,
    /// participants over time (members by the day they joined, and their running total), and
    /// adherence per day of the prompts' due times (``ServerStore/adherencePerDay(studyId:from:to:)``).
    func overview(_ context: ServerRequestContext) async throws -> Response {
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

    /// Members by pseudonym with their sheets and adherence (flagged by the report's rule,
    /// ``AdherenceReport/console``: below half, or no prompt event for a week), the open join
    /// requests, and those denied (as `join-requests list --all` lists them; an approved one is a
    /// member).
    func participants(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let current = try context.study, language = try context.console.language
        let now = environment.clock.now()
        let counts = AdherenceTotals()
        try await store.adherence(studyId: current.study.id, from: nil, to: nil) { line in counts.add(line) }
        let adherence = counts.byParticipant
        let everyone = try await store.studyParticipants(studyId: current.study.id)
        let members = everyone.filter { $0.status == .member }.map { person -> ConsoleParticipantsPage.Member in
            let line = adherence[person.pseudonym]
            let flags = AdherenceReport.console.flags(rate: line?.counts.rate, lastSync: line?.lastSync, now: now).map {
                PortalText.text($0 == .below ? "console.participants.flagBelow" : "console.participants.flagSilent", language)
            }
            return .init(pseudonym: person.pseudonym, joined: person.joinedAt.map(Self.day) ?? "", lastSheet: person.lastSheetAt.map(Self.day) ?? "",
                         consent: person.consentVersion.map(String.init) ?? "", sheets: person.sheets,
                         rate: line?.counts.rate.map { String(format: "%.0f %%", $0 * 100) } ?? "", flags: flags.joined(separator: ", "))
        }
        func requests(_ status: MembershipStatus) -> [ConsoleParticipantsPage.Request] {
            everyone.filter { $0.status == status }.map { .init(pseudonym: $0.pseudonym, requested: $0.requestedAt.map(Self.day) ?? "") }
        }
        return try await page(ConsoleParticipantsPage(members: members, requests: requests(.pending), denied: requests(.denied),
                                                      canDecide: ConsolePage.decideRequest.allows(current.role)), context,
                              notice: notice(request, language))
    }

    static func day(_ date: Date) -> String { String(Timestamps.format(date).prefix(10)) }

    func decideRequest(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id
        guard let person = try await store.studyParticipants(studyId: studyId).first(where: { $0.pseudonym == form["participant"] }),
              ["approve", "deny"].contains(form["decision"]) else { throw ConsoleRefusal(.unprocessableContent, "console.error.noRequest") }
        try await administration(context).decideJoinRequest(studyId: studyId, userId: person.userId,
                                                            status: form["decision"] == "approve" ? .member : .denied)
        return try context.console.base.redirect(to: "/console/studies/\(studyId)/participants?notice=decided")
    }

    // MARK: Data

    func data(_ context: ServerRequestContext) async throws -> Response {
        let current = try context.study
        let ids = try await store.latestQuestionnaires(studyId: current.study.id).map(\.id)
        return try await page(ConsoleDataPage(questionnaires: ids, canExport: ConsolePage.export.allows(current.role)), context)
    }

    /// Streams the export in the chosen format and filters (``StudyExports``): the rows go to
    /// private temporary files as the store hands them over (the memory of one row), then to the
    /// browser in chunks, the files of FHIR one after the other. The audit line records format,
    /// filters and rows before the first byte leaves.
    func export(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        let query = request.uri.queryParameters
        guard let format = query["format"].flatMap({ ExportFormat(rawValue: String($0)) }) else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.format")
        }
        var filter = ExportFilter()
        if let questionnaire = query["questionnaire"].map(String.init), !questionnaire.isEmpty { filter.questionnaire = questionnaire }
        (filter.from, filter.to) = try Self.days(query)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-console-\(UUID().uuidString)")
        let written: StudyExports.Written
        do {
            written = try await exports(context).answers(of: studyId, format: format, filter: filter, into: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let files = written.files
        let name = format == .fhirNDJSON ? "\(studyId)-fhir.ndjson" : format.fileNames(study: studyId)[0]
        let body = ResponseBody { writer in
            defer { try? FileManager.default.removeItem(at: directory) }
            for url in files {
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: format.mediaType, .contentDisposition: "attachment; filename=\"\(name)\""], body: body)
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

    /// `uniti-server adherence --format csv` from the data page (``StudyExports``): per
    /// participant and questionnaire the counts and the rate of the prompts due in the chosen
    /// days, flagged as the participants page flags them (``AdherenceReport/console``). A line
    /// per participant and questionnaire (a study's tens of thousands at most).
    func adherenceReport(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        let (from, to) = try Self.days(request.uri.queryParameters)
        let lines = Mutex<[String]>([CSV.line(AdherenceReport.header)])
        try await exports(context).adherence(of: studyId, from: from, to: to, flags: AdherenceReport.console, form: "csv") { line in
            lines.withLock { $0.append(CSV.line(line.cells)) }
        }
        return Self.download(lines.withLock { $0.joined() }, name: "\(studyId)-adherence.csv", type: "text/csv; charset=utf-8")
    }

    /// The codebook of the study's questionnaires, every version (``Codebook``), as a download of its own.
    func codebook(_ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        return Self.download(try await exports(context).codebook(of: studyId), name: "\(studyId)-codebook.csv", type: "text/csv; charset=utf-8")
    }

    /// SPSS syntax that reads the SPSS data export with the codebook's types and value labels
    /// (``SPSSSyntax``).
    func spssSyntax(_ context: ServerRequestContext) async throws -> Response {
        let studyId = try context.study.study.id
        return Self.download(try await exports(context).spssSyntax(of: studyId), name: "\(studyId)-answers.sps", type: "text/plain; charset=utf-8")
    }

    static func download(_ text: String, name: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: Questionnaires

    func questionnaires(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try await page(questionnairesPage(try context.study.study.id, try context.console.language), context,
                       notice: notice(request, try context.console.language))
    }

    func questionnairesPage(_ studyId: String, _ language: String) async throws -> ConsoleQuestionnairesPage {
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

    /// A definition pasted into the form, checked and stored as `questionnaire import` does it
    /// (``StudyAdministration/importQuestionnaire(_:into:module:)``): every problem is listed
    /// with its path, and nothing is stored until there is none. No module chosen: the rule the
    /// command line follows.
    func uploadQuestionnaire(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id, language = try context.console.language
        var shown = try await questionnairesPage(studyId, language)
        shown.definition = form["definition"]
        do {
            _ = try await administration(context).importQuestionnaire(Data(form["definition"].utf8), into: studyId,
                                                                      module: form["module"].isEmpty ? nil : form["module"])
            return try context.console.base.redirect(to: "/console/studies/\(studyId)/questionnaires?notice=questionnaireStored")
        } catch let problems as QuestionnaireProblems {
            shown.problems = problems.problems
        } catch {
            guard let (_, message) = Self.explain(error, language) else { throw error }
            shown.problems = [message]
        }
        return try await page(shown, context, status: .unprocessableContent, error: PortalText.text("console.error.questionnaire", language))
    }

    func switchQuestionnaire(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
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
    func preview(_ context: ServerRequestContext) async throws -> Response {
        try await previewPage(try await questionnaire(context), context)
    }

    /// A preview submitted: read and checked exactly as the portal reads and checks a
    /// participant's finished form (``PortalAnswerForm``, then the shared ``AnswerSheetValidator``
    /// over the whole sheet), shown again with each problem beside its item, or with the answers
    /// a participant's sheet would hold. Nothing is stored: this is no participant's sheet.
    func previewSubmission(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
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

    func previewPage(_ document: QuestionnaireDocument, _ context: ServerRequestContext, shown: [String: AnswerValue] = [:],
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

    func settings(_ context: ServerRequestContext) async throws -> Response {
        try await page(settingsPage(try context.study.study, try context.console.language), context)
    }

    func settingsPage(_ study: StudyRecord, _ language: String) -> ConsoleSettingsPage {
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

    /// The settings form read into ``StudySettings`` (every field; an empty password keeps the
    /// one set) and changed by the rules `study update` follows; a refused form comes back as
    /// typed, with the one line of the first rule broken.
    func saveSettings(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), before = try context.study.study, language = try context.console.language
        var settings = StudySettings()
        do {
            func text(_ name: String) -> LocalizedText? {
                let values = ["en": form["\(name)En"], "de": form["\(name)De"]].filter { !$0.value.isEmpty }
                return values.isEmpty ? nil : LocalizedText(values)
            }
            func day(_ name: String) throws -> Date? {
                guard !form[name].isEmpty else { return nil }
                guard let date = Timestamps.parse(form[name] + "T00:00:00Z") else { throw APIError.invalid("invalid_date", "Give dates as YYYY-MM-DD.") }
                return date
            }
            settings.title = text("title") ?? LocalizedText([:])
            settings.description = .some(text("description"))
            settings.running = form["running"] == "on"
            settings.participantsMayLeave = form["mayLeave"] == "on"
            settings.rewards = form["rewards"] == "on"
            settings.modules = form.fields.keys.filter { $0.hasPrefix("module-") }.map { String($0.dropFirst(7)) }.sorted()
            guard let access = StudyAccess(rawValue: form["access"]) else { throw APIError.invalid("invalid_access", "Choose how participants join.") }
            settings.access = access
            if !form["password"].isEmpty { settings.password = form["password"] }
            settings.startsAt = .some(try day("starts"))
            settings.endsAt = .some(try day("ends"))
            // The study's schedules as `study update --schedules FILE` takes them: any JSON value, or none.
            let schedules = form["schedules"].trimmingCharacters(in: .whitespacesAndNewlines)
            if schedules.isEmpty {
                settings.schedules = .some(nil)
            } else {
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(schedules.utf8)) else {
                    throw APIError.invalid("invalid_schedules", "The schedules are not JSON.")
                }
                settings.schedules = value
            }
            try await administration(context).update(before.id, settings)
            return try context.console.base.redirect(to: "/console/studies/\(before.id)/settings?notice=saved")
        } catch {
            return try await failed(settingsPage(settings.shown(on: before), language), context, error)
        }
    }

    // MARK: Team and audit

    func team(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try await page(teamPage(try context.study.study.id, try context.console.language), context,
                       notice: notice(request, try context.console.language))
    }

    /// The team with their roles, and below them the open invitations as the owner typed them.
    func teamPage(_ studyId: String, _ language: String) async throws -> ConsoleTeamPage {
        ConsoleTeamPage(members: try await store.studyTeam(studyId: studyId).map {
            .init(id: $0.member.id, name: $0.member.name, email: $0.member.email, role: PortalText.text("console.role.\($0.role.rawValue)", language))
        }, invitations: try await store.studyInvitations(studyId: studyId).enumerated().map { index, invitation in
            .init(number: index + 1, name: invitation.name, email: invitation.email,
                  role: PortalText.text("console.role.\(invitation.role.rawValue)", language))
        })
    }

    /// An owner invites someone by name and address with a role, or changes a member's role
    /// (``StudyTeam/invite(email:name:role:to:)``): the page says the same for any invitation,
    /// whether or not the address has a staff account.
    func addTeamMember(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id
        do {
            guard let role = StudyRole(rawValue: form["role"]) else { throw APIError.invalid("invalid_role", "Choose owner, editor or viewer.") }
            let outcome = try await team(context).invite(email: form["email"], name: form["name"], role: role, to: studyId)
            return try context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=\(outcome == .invited ? "invited" : "teamChanged")")
        } catch {
            return try await failed(teamPage(studyId, try context.console.language), context, error)
        }
    }

    /// An owner withdraws an open invitation.
    func withdrawInvitation(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id
        guard try await team(context).withdraw(email: form["email"], from: studyId) else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.notInvited")
        }
        return try context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=invitationWithdrawn")
    }

    /// The study's trail, oldest first.
    func audit(_ context: ServerRequestContext) async throws -> Response {
        try await page(ConsoleAuditPage(lines: Self.lines(try await store.auditTrail(studyId: try context.study.study.id)), accountWide: false), context)
    }

    /// Every line, of every study and of the staff accounts (who was added, enrolled, used a
    /// recovery code, changed a password, was disabled): an administrator's page.
    func accountAudit(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        try await page(ConsoleAuditPage(lines: Self.lines(try await store.auditTrail()), accountWide: true), context)
    }

    static func lines(_ entries: [AuditEntry]) -> [ConsoleAuditPage.Line] {
        entries.map {
            ConsoleAuditPage.Line(at: Timestamps.format($0.at), who: $0.actorText, study: $0.studyId ?? "", action: $0.action,
                                  detail: (try? JSONCoding.string($0.detail)) ?? "")
        }
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
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            // A form over ``PortalForm/maximumBytes`` (not the API's limit): a page with the
            // console's headers, and the limit in words a person can act on.
            let size = PortalText.size(PortalForm.maximumBytes, language)
            return try await errorPage(context, .contentTooLarge, PortalText.text("console.error.tooLarge", language, ["size": size]))
        } catch {
            if let (status, message) = ConsoleRoutes.explain(error, language) { return try await errorPage(context, status, message) }
            if let error = error as? any HTTPResponseError, error.status.code < 500 { throw error }
            context.logger.error("console request failed: \(String(describing: error))")
            return try await errorPage(context, .internalServerError, PortalText.text("console.error.internal", language))
        }
    }

    /// The error page; a study page's error page shows no study tabs (the study may be out of reach).
    func errorPage(_ context: ServerRequestContext, _ status: HTTPResponse.Status, _ message: String) async throws -> Response {
        var context = context
        context.consoleStudy = nil
        return try await routes.page(ConsoleErrorPage(), context, status: status, error: message)
    }
}
