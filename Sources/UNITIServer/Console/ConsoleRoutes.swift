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
            case .study(let minimum):
                signedIn.group().add(middleware: ConsoleStudyAccess(store: store, minimum: minimum, forSiteStaff: page.forSiteStaff,
                                                                   exactRole: page.exactRole))
            }
            // Each page's handler gets the context its gate made sure of (``ConsoleContexts``).
            switch page.handler {
            case .visitor(let handle):
                group.group(context: ConsoleContext.self).on(RouterPath(page.path), method: page.method) { try await handle(self, $0, $1) }
            case .member(let handle):
                group.group(context: StaffContext.self).on(RouterPath(page.path), method: page.method) { try await handle(self, $0, $1) }
            case .study(let handle):
                group.group(context: StudyContext.self).on(RouterPath(page.path), method: page.method) { try await handle(self, $0, $1) }
            }
        }
    }

    // MARK: Rendering

    func page(_ page: some PortalPage, _ context: some ConsolePageContext, status: HTTPResponse.Status = .ok,
              notice: String? = nil, error: String? = nil) async throws -> Response {
        try render(page, context.console, study: context.shownStudy, status: status, notice: notice, error: error)
    }

    /// The page in the console's layout; with `study`, under that study's tabs.
    func render(_ page: some PortalPage, _ visit: ConsoleVisit, study: ConsoleStudy?, status: HTTPResponse.Status = .ok,
                notice: String? = nil, error: String? = nil) throws -> Response {
        let html = try templates.get().render(page, ConsoleLayout(visit, study: study, notice: notice, error: error))
        return visit.base.html(html, status: status)
    }

    /// A notice named in the query after a redirect (``WebSurface/notice(_:_:)``).
    func notice(_ request: Request, _ language: String) -> String? { WebSurface.console.notice(request, language) }

    /// The line for an error a person can act on (``WebSurface/explain(_:_:)``).
    static func explain(_ error: any Error, _ language: String) -> (HTTPResponse.Status, String)? {
        WebSurface.console.explain(error, language)
    }

    /// The form page again with the one-line reason of a refused step.
    func failed(_ page: some PortalPage, _ context: some ConsolePageContext, _ error: any Error) async throws -> Response {
        guard let (status, message) = Self.explain(error, context.console.language) else { throw error }
        return try await self.page(page, context, status: status, error: message)
    }

    /// The rule book, acting as the signed-in member.
    func administration(_ context: some ConsoleMemberContext) -> StudyAdministration {
        StudyAdministration(store: store, actor: .staff(context.staff.member.id), now: environment.clock.now(),
                            passwords: environment.passwords)
    }

    func team(_ context: some ConsoleMemberContext) -> StudyTeam {
        StudyTeam(administration: administration(context), environment: environment)
    }

    func exports(_ context: some ConsoleMemberContext) -> StudyExports {
        StudyExports(administration: administration(context))
    }
}

/// What goes wrong below a console route, as a console page in the member's language.
struct ConsoleErrorPages: RouterMiddleware {
    let routes: ConsoleRoutes

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        let language = WebSurface.language(request)
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
        try routes.render(ConsoleErrorPage(), try context.console, study: nil, status: status, error: message)
    }
}
