import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol

/// The participant web portal at `/`: server-rendered pages with plain forms that work without
/// JavaScript. Account steps go through ``AccountService``, the same code the JSON API runs, so
/// rules, messages, mailed codes, sessions and the login throttle are shared with the apps.
///
/// Topics: the visit (language, session, CSRF); account pages (register, activate, login,
/// forgotten password, logout); the start page; the language switch.
///
/// The routes come in three groups (``register(on:)``): the style sheet and script, which need
/// no visitor; the public pages, where ``PortalSessionMiddleware`` resolves the session and
/// ``CSRFCheck`` checks every posted form; and the signed-in pages, the same plus
/// ``RequirePortalSignIn``, so no handler checks a session itself (a test walks the routes).
package struct PortalRoutes: Sendable {
    package let environment: ServerEnvironment
    let csrfKeys: CSRFKeys
    let sessions: PortalSessions
    /// The server's templates and the module parts' (``PortalTemplates/with(_:)``).
    let templates: Result<PortalTemplates, PortalTemplateError>
    var accounts: AccountService { AccountService(environment: environment) }
    var studyService: StudyService { StudyService(environment: environment) }

    init(environment: ServerEnvironment, sessionLifetime: TimeInterval = 8 * 60 * 60) {
        self.environment = environment
        self.csrfKeys = CSRFKeys(store: environment.store, clock: environment.clock)
        self.sessions = PortalSessions(environment: environment, lifetime: sessionLifetime)
        self.templates = PortalTemplates.with(environment.store.modules)
    }

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.add(middleware: SecurityHeaders())
        // What every page loads: no visitor is looked up for these.
        group.get("portal.css") { _, _ in try asset(\.styleSheet, type: "text/css; charset=utf-8") }
        group.get("portal.js") { _, _ in try asset(\.script, type: "text/javascript; charset=utf-8") }
        let pages = group.group()
            .add(middleware: PortalSessionMiddleware(routes: self))
            .add(middleware: PortalErrorPages(routes: self))
            .add(middleware: CSRFCheck.portal(csrfKeys))
        let visitors = pages.group(context: PortalContext.self)
        visitors.get("login") { request, context in try await show(request, context) { _ in LoginPage() } }
        visitors.post("login") { request, context in try await login(request, context) }
        visitors.post("reactivate") { request, context in try await reactivate(request, context) }
        visitors.get("register") { request, context in try await show(request, context) { _ in RegisterPage() } }
        visitors.post("register") { request, context in try await register(request, context) }
        visitors.get("activate") { request, context in try await show(request, context) { ActivatePage(code: $0) } }
        visitors.post("activate") { request, context in try await activate(request, context) }
        visitors.get("password/forgot") { request, context in try await show(request, context) { _ in ForgotPasswordPage() } }
        visitors.post("password/forgot") { request, context in try await forgotPassword(request, context) }
        visitors.get("password/reset") { request, context in try await show(request, context) { ResetPasswordPage(code: $0) } }
        visitors.post("password/reset") { request, context in try await resetPassword(request, context) }
        visitors.post("logout") { request, context in try await logout(request, context) }
        visitors.post("language") { request, context in try await switchLanguage(request, context) }
        // Every page below needs a session; without one, the login page.
        let signedIn = pages.group().add(middleware: RequirePortalSignIn()).group(context: ParticipantContext.self)
        signedIn.get("/") { request, context in try await start(request, context) }
        registerQuestionnairePages(on: signedIn)
        registerAccountPages(on: signedIn)
        registerScreeningPages(on: signedIn)
        for part in environment.store.modules.parts(PortalPagesProviding.self) {
            part.registerPortal(on: signedIn, portal: self)
        }
    }

    /// Where a visitor without a session is sent from a signed-in page.
    static var toLogin: Response { Response(status: .seeOther, headers: [.location: "/login"]) }

    // MARK: The visit

    /// - Parameter renewingVisitorToken: gives a new double-submit cookie even when the old one
    ///   is valid. The page after logout does: Chrome keeps `no-store` pages in its back/forward
    ///   cache and evicts them only when an HttpOnly cookie changes *while* they are cached, and
    ///   the logout's own cookie change comes before the start page is cached. Without this,
    ///   the back button after logout showed the start page again (PortalBrowserTests).
    func visit(_ request: Request, _ context: ServerRequestContext, renewingVisitorToken: Bool = false) async throws -> PortalVisit {
        let session = try await sessions.current(request)
        var visit = WebSurface.portal.visit(request, context, csrf: try await csrfKeys.csrf(), sessionHash: session?.storedHash,
                                            renewingVisitorToken: renewingVisitorToken)
        visit.session = session
        visit.navigation = environment.store.modules.parts(PortalPagesProviding.self).flatMap(\.portalNavigation)
        visit.timeZone = PortalVisit.timeZone(cookie: request.cookies[PortalVisit.timeZoneCookie]?.value) ?? .current
        if let session, let renewed = sessions.renewedCookie(session, request, secure: visit.secure) { visit.cookies.append(renewed) }
        return visit
    }

    /// The visitor's language (``WebSurface/language(_:)``).
    static func language(_ request: Request) -> String { WebSurface.language(request) }

    /// The page shown with the layout's values of this visit (and a notice or error line).
    package func page(_ page: some PortalPage, _ visit: PortalVisit, status: HTTPResponse.Status = .ok,
              notice: String? = nil, error: String? = nil) throws -> Response {
        let html = try templates.get().render(page, PortalLayout(visit, notice: notice, error: error))
        return visit.html(html, status: status)
    }

    /// The page for an account step that failed: the form again, with the one-line reason.
    func failed(_ page: some PortalPage, _ visit: PortalVisit, _ error: any Error) throws -> Response {
        guard let (status, message) = Self.explain(error, visit.language) else { throw error }
        return try self.page(page, visit, status: status, error: message)
    }

    /// The status and localized line for an account error (``WebSurface/explain(_:_:)``).
    static func explain(_ error: any Error, _ language: String) -> (HTTPResponse.Status, String)? {
        WebSurface.portal.explain(error, language)
    }

    /// A notice named in the query after a redirect (``WebSurface/notice(_:_:)``).
    func notice(_ request: Request, _ language: String) -> String? { WebSurface.portal.notice(request, language) }

    // MARK: Pages

    /// A shipped file every page loads (`portal.css`, `portal.js`), cached by the browser for an hour.
    private func asset(_ file: KeyPath<PortalTemplates, Data>, type: String) throws -> Response {
        let data = try templates.get()[keyPath: file]
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=3600"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A form page for visitors, given the code of a mailed link (`/activate?code=…`: it fills
    /// the form; only the POST spends it); a logged-in visitor goes to the start page instead.
    func show<Page: PortalPage>(_ request: Request, _ context: some PortalPageContext, _ form: (String?) -> Page) async throws -> Response {
        let visit = context.visit
        if visit.session != nil { return visit.redirect(to: "/") }
        let code = request.uri.queryParameters["code"].map(String.init).flatMap { code in
            (1...64).contains(code.count) && code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? code : nil
        }
        return try page(form(code), visit, notice: notice(request, visit.language))
    }

    private func start(_ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit, session = context.participant
        var studies: [StartPage.Membership] = []
        for (studyId, status) in try await environment.store.memberships(userId: session.account.id).sorted(by: { $0.key < $1.key }) {
            let title = try await environment.store.study(id: studyId).map { $0.title.text(in: visit.language, fallback: $0.fallbackLanguage) } ?? studyId
            studies.append(.init(title: title, status: PortalText.text("portal.membership.\(status.rawValue)", visit.language)))
        }
        return try page(StartPage(studies: studies), visit, notice: notice(request, visit.language))
    }

    private func login(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        let login = form["login"]
        do {
            let account = try await accounts.accountForLogin(login: login, password: form["password"], client: context.clientAddress)
            return try await signIn(account, visit)
        } catch let error as APIError where error.code == "account_deactivated" {
            // The password was right (it is checked first), so the person may bring the account back.
            return try page(ReactivatePage(login: login), visit, status: .forbidden)
        } catch {
            return try failed(LoginPage(login: login), visit, error)
        }
    }

    /// Starts a session for the account and goes to the start page (with a notice when named).
    private func signIn(_ account: UserAccount, _ visit: PortalVisit, notice: String? = nil) async throws -> Response {
        // A new secret at every login: a session id planted before login is worth nothing.
        let secret = try await sessions.start(userId: account.id)
        return visit.redirect(to: notice.map { "/?notice=\($0)" } ?? "/", setting: [sessions.cookie(secret: secret, secure: visit.secure)])
    }

    /// The reactivation form's answer: the password again (it is never carried from the login
    /// form, not even hidden in the page), then the account is active and the person signed in.
    private func reactivate(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        let login = form["login"]
        do {
            let account = try await accounts.reactivate(login: login, password: form["password"], client: context.clientAddress)
            return try await signIn(account, visit, notice: "reactivated")
        } catch {
            return try failed(ReactivatePage(login: login), visit, error)
        }
    }

    /// A taken address leads to the same page as a new one (``AccountService/register(username:email:password:language:client:)``).
    private func register(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        let echo = RegisterPage(username: form["username"], email: form["email"])
        guard form["password"] == form["passwordRepeat"] else {
            return try page(echo, visit, status: .unprocessableContent, error: PortalText.text("portal.error.passwordsDiffer", visit.language))
        }
        do {
            try await accounts.register(username: form["username"], email: form["email"], password: form["password"],
                                        language: visit.language, client: context.clientAddress)
            return visit.redirect(to: "/activate?notice=registered")
        } catch {
            return try failed(echo, visit, error)
        }
    }

    private func activate(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        do {
            try await accounts.activate(code: form["code"].trimmingCharacters(in: .whitespacesAndNewlines))
            return visit.redirect(to: "/login?notice=activated")
        } catch {
            return try failed(ActivatePage(), visit, error)
        }
    }

    private func forgotPassword(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        do {
            try await accounts.startPasswordReset(email: form["email"], client: context.clientAddress)
            return visit.redirect(to: "/password/reset?notice=resetMailSent")
        } catch {
            return try failed(ForgotPasswordPage(email: form["email"]), visit, error)
        }
    }

    private func resetPassword(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        guard form["password"] == form["passwordRepeat"] else {
            return try page(ResetPasswordPage(), visit, status: .unprocessableContent,
                            error: PortalText.text("portal.error.passwordsDiffer", visit.language))
        }
        do {
            try await accounts.confirmPasswordReset(code: form["code"].trimmingCharacters(in: .whitespacesAndNewlines),
                                                    newPassword: form["password"])
            // The reset ended every session; the browser forgets its cookie too.
            return visit.redirect(to: "/login?notice=passwordChanged", setting: [sessions.expiredCookie(secure: visit.secure)])
        } catch {
            return try failed(ResetPasswordPage(), visit, error)
        }
    }

    private func logout(_ request: Request, _ context: PortalContext) async throws -> Response {
        let visit = context.visit
        if let session = visit.session { try await sessions.end(session) }
        // The page it leads to renews the visitor cookie, which evicts the start page from the
        // browser's back/forward cache (see ``visit(_:renewingVisitorToken:)``).
        return visit.redirect(to: "/login?notice=loggedOut", setting: [sessions.expiredCookie(secure: visit.secure)])
    }

    /// Sets the language cookie and returns to the page the switch was on (a path of this site
    /// only, ``sameSitePath(_:)``, so the form cannot be used to send a visitor elsewhere).
    private func switchLanguage(_ request: Request, _ context: PortalContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        let language = form["language"]
        guard PortalText.languages.contains(language) else {
            throw PortalRefusal(status: .unprocessableContent, messageKey: "portal.error.invalid_language")
        }
        let target = Self.sameSitePath(form["back"])
        let cookie = Cookie(name: PortalText.languageCookie, value: language, maxAge: 365 * 24 * 60 * 60, path: "/",
                            secure: visit.secure, httpOnly: true, sameSite: .lax)
        return visit.redirect(to: target, setting: [cookie])
    }
}

extension PortalRoutes {
    /// `back` as a path of this site, else the start page. Control characters go first: a browser
    /// drops a tab or a line break inside a URL, so `/\t/host` would reach it as `//host`,
    /// another site. What is left must begin with one `/` and hold no `\` (which browsers read as
    /// `/`).
    static func sameSitePath(_ back: String) -> String {
        let cleaned = String(String.UnicodeScalarView(back.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
        guard cleaned.hasPrefix("/"), !cleaned.hasPrefix("//"), !cleaned.contains("\\") else { return "/" }
        return cleaned
    }
}

/// A request the portal refuses with a page (a forged form: 403), rendered by ``PortalErrorPages``.
package struct PortalRefusal: Error {
    var status: HTTPResponse.Status
    var messageKey: String

    package init(status: HTTPResponse.Status, messageKey: String) {
        self.status = status
        self.messageKey = messageKey
    }
}

/// Turns what goes wrong below a portal route into an HTML page in the visitor's language,
/// never the API's JSON and never a stack trace.
struct PortalErrorPages: RouterMiddleware {
    let routes: PortalRoutes

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is PortalSignInRequired {
            return PortalRoutes.toLogin
        } catch let refusal as PortalRefusal {
            let message = PortalText.text(refusal.messageKey, PortalRoutes.language(request))
            return try await routes.errorPage(request, context, refusal.status, message)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            // A form over ``PortalForm/maximumBytes``: the limit in words a person can act on.
            let language = PortalRoutes.language(request)
            let size = PortalText.size(PortalForm.maximumBytes, language)
            let message = PortalText.text("portal.error.tooLarge", language, ["size": size])
            return try await routes.errorPage(request, context, .contentTooLarge, message)
        } catch {
            if let (status, message) = PortalRoutes.explain(error, PortalRoutes.language(request)) {
                return try await routes.errorPage(request, context, status, message)
            }
            if let error = error as? any HTTPResponseError, error.status.code < 500 { throw error }
            context.logger.error("portal request failed: \(String(describing: error))")
            let message = PortalText.text("portal.error.internal", PortalRoutes.language(request))
            return try await routes.errorPage(request, context, .internalServerError, message)
        }
    }
}

extension PortalRoutes {
    /// The error page with a one-line message, in the visitor's language: for the visit the
    /// request already has, else (an address no route has) for one resolved now.
    func errorPage(_ request: Request, _ context: ServerRequestContext, _ status: HTTPResponse.Status, _ message: String) async throws -> Response {
        let visit = if let known = context.portalVisit { known } else { try await visit(request, context) }
        return try page(ErrorPage(), visit, status: status, error: message)
    }
}

/// An address no route has, outside the API (`/api/`) and `/health`: the portal's error page
/// with the portal's headers (``SecurityHeaders``), not the API's JSON. Added to the router
/// itself, since a path no route matches never reaches the portal's group.
struct PortalFallbackPages: RouterMiddleware {
    let routes: PortalRoutes

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where (error.status == .notFound || error.status == .methodNotAllowed)
                    && !request.uri.path.hasPrefix("/api/") && request.uri.path != "/health" {
            let message = PortalText.text("portal.error.notFound", PortalRoutes.language(request))
            var response = try await routes.errorPage(request, context, error.status, message)
            SecurityHeaders<ServerRequestContext>.apply(to: &response)
            return response
        }
    }
}
