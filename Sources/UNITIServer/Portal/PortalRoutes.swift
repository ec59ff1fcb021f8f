import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol

/// The participant web portal at `/`: server-rendered pages with plain forms that work without
/// JavaScript. Account steps go through ``AccountService``, the same code the JSON API runs, so
/// rules, messages, mailed codes, sessions and the login throttle are shared with the apps.
///
/// Topics: the visit (language, session, CSRF); account pages (register, activate, login,
/// forgotten password, logout); the start page; the language switch. Later slices
/// (questionnaires, health record, data download) add their pages here behind ``signedIn(_:)``.
struct PortalRoutes: Sendable {
    let environment: ServerEnvironment
    let csrfKeys: CSRFKeys
    let sessions: PortalSessions
    var accounts: AccountService { AccountService(environment: environment) }
    var studyService: StudyService { StudyService(environment: environment) }

    init(environment: ServerEnvironment, sessionLifetime: TimeInterval = 8 * 60 * 60) {
        self.environment = environment
        self.csrfKeys = CSRFKeys(store: environment.store, clock: environment.clock)
        self.sessions = PortalSessions(environment: environment, lifetime: sessionLifetime)
    }

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.add(middleware: SecurityHeaders())
        group.add(middleware: PortalErrorPages(routes: self))
        group.get("portal.css") { _, _ in try styleSheet() }
        group.get("/") { request, _ in try await start(request) }
        group.get("login") { request, _ in try await show("login", request) }
        group.post("login") { request, context in try await login(request, context) }
        group.post("reactivate") { request, context in try await reactivate(request, context) }
        group.get("register") { request, _ in try await show("register", request) }
        group.post("register") { request, context in try await register(request, context) }
        group.get("activate") { request, _ in try await show("activate", request) }
        group.post("activate") { request, _ in try await activate(request) }
        group.get("password/forgot") { request, _ in try await show("forgot", request) }
        group.post("password/forgot") { request, context in try await forgotPassword(request, context) }
        group.get("password/reset") { request, _ in try await show("reset", request) }
        group.post("password/reset") { request, _ in try await resetPassword(request) }
        group.post("logout") { request, _ in try await logout(request) }
        group.post("language") { request, _ in try await switchLanguage(request) }
        registerQuestionnairePages(on: group)
        registerRecordPages(on: group)
        registerAccountPages(on: group)
    }

    // MARK: The visit

    /// - Parameter renewingVisitorToken: gives a new double-submit cookie even when the old one
    ///   is valid. The page after logout does: Chrome keeps `no-store` pages in its back/forward
    ///   cache and evicts them only when an HttpOnly cookie changes *while* they are cached, and
    ///   the logout's own cookie change comes before the start page is cached. Without this,
    ///   the back button after logout showed the start page again (PortalBrowserTests).
    func visit(_ request: Request, renewingVisitorToken: Bool = false) async throws -> PortalVisit {
        let language = Self.language(request)
        let secure = Self.isSecure(request)
        let session = try await sessions.current(request)
        let csrf = try await csrfKeys.csrf()
        var visit = PortalVisit(language: language, session: session, csrfToken: "", secure: secure, path: request.uri.path)
        visit.timeZone = PortalVisit.timeZone(cookie: request.cookies[PortalVisit.timeZoneCookie]?.value) ?? .current
        if let session {
            visit.csrfToken = csrf.token(sessionHash: session.storedHash)
            if let renewed = sessions.renewedCookie(session, request, secure: secure) { visit.cookies.append(renewed) }
        } else if !renewingVisitorToken, let existing = request.cookies[CSRF.visitorCookie]?.value,
                  csrf.isSigned(visitorToken: existing) {
            visit.csrfToken = existing
        } else {
            visit.csrfToken = csrf.newVisitorToken()
            visit.cookies.append(Cookie(name: CSRF.visitorCookie, value: visit.csrfToken, path: "/", secure: secure,
                                        httpOnly: true, sameSite: .lax))
        }
        return visit
    }

    /// A posted form with the visit, or the 403 page when its CSRF token is missing or wrong.
    func checkedForm(_ request: Request) async throws -> (PortalForm, PortalVisit) {
        let visit = try await visit(request)
        let form = try await PortalForm.read(request)
        guard try await csrfKeys.csrf().accepts(submitted: form.fields[CSRF.fieldName], sessionHash: visit.session?.storedHash,
                           visitorCookie: request.cookies[CSRF.visitorCookie]?.value) else {
            throw PortalRefusal(status: .forbidden, messageKey: "portal.error.csrf")
        }
        return (form, visit)
    }

    /// The visitor's language, from the switch's cookie or `Accept-Language` (``PortalText``).
    static func language(_ request: Request) -> String {
        PortalText.language(cookie: request.cookies[PortalText.languageCookie]?.value, acceptLanguage: request.headers[.acceptLanguage])
    }

    /// TLS ends at this server only behind a proxy, which says so in `X-Forwarded-Proto`; the
    /// header can only make cookies stricter, so trusting it costs nothing.
    static func isSecure(_ request: Request) -> Bool {
        request.uri.scheme == .https || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    func page(_ name: String, _ visit: PortalVisit, status: HTTPResponse.Status = .ok, _ values: [String: Any] = [:]) throws -> Response {
        let html = try PortalTemplates.shipped.get().render(name, visit.values(values))
        return visit.html(html, status: status)
    }

    /// The page for an account step that failed: the form again, with the one-line reason.
    func failed(_ name: String, _ visit: PortalVisit, _ error: any Error, _ values: [String: Any] = [:]) throws -> Response {
        guard let (status, message) = Self.explain(error, visit.language) else { throw error }
        var values = values
        values["error"] = message
        return try page(name, visit, status: status, values)
    }

    /// The status and localized line for an account error (the API's code names the string); nil
    /// for errors that are no fault of the visitor.
    static func explain(_ error: any Error, _ language: String) -> (HTTPResponse.Status, String)? {
        switch error {
        case let error as APIError:
            let key = "portal.error.\(error.code)"
            let seconds = error.headers["Retry-After"] ?? ""
            let text = PortalText.text(key, language, ["seconds": seconds])
            return (error.status, text == key ? error.message : text)
        case StoreConflict.usernameTaken:
            return (.conflict, PortalText.text("portal.error.username_taken", language))
        case StoreConflict.emailTaken:
            return (.conflict, PortalText.text("portal.error.email_taken", language))
        default:
            return nil
        }
    }

    /// A notice named in the query after a redirect (`?notice=activated`): the text of
    /// `portal.notice.<name>`; names without such a string (or not a plain word) show nothing,
    /// so a crafted link cannot put words on a page.
    func notice(_ request: Request, _ language: String) -> [String: Any] {
        guard let name = request.uri.queryParameters["notice"].map(String.init),
              !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber }) else { return [:] }
        let key = "portal.notice.\(name)"
        let text = PortalText.text(key, language)
        return text == key ? [:] : ["notice": text]
    }

    // MARK: Pages

    private func styleSheet() throws -> Response {
        let css = try PortalTemplates.shipped.get().styleSheet
        return Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
                        body: .init(byteBuffer: ByteBuffer(bytes: css)))
    }

    /// A form page for visitors; a logged-in visitor goes to the start page instead.
    func show(_ name: String, _ request: Request) async throws -> Response {
        let visit = try await visit(request, renewingVisitorToken: request.uri.queryParameters["notice"] == "loggedOut")
        if visit.session != nil { return visit.redirect(to: "/") }
        var values = notice(request, visit.language)
        // A mailed link (`/activate?code=…`) fills the form; only the POST spends the code.
        if let code = request.uri.queryParameters["code"].map(String.init), (1...64).contains(code.count),
           code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            values["code"] = code
        }
        return try page(name, visit, values)
    }

    /// The visit of a logged-in person, or nil (the caller redirects to the login page).
    func signedIn(_ request: Request) async throws -> (PortalVisit, PortalSession)? {
        let visit = try await visit(request)
        guard let session = visit.session else { return nil }
        return (visit, session)
    }

    private func start(_ request: Request) async throws -> Response {
        guard let (visit, session) = try await signedIn(request) else { return Response(status: .seeOther, headers: [.location: "/login"]) }
        var studies: [[String: Any]] = []
        for (studyId, status) in try await environment.store.memberships(userId: session.account.id).sorted(by: { $0.key < $1.key }) {
            let title = try await environment.store.study(id: studyId)?.title.text(in: visit.language) ?? studyId
            studies.append(["title": title, "status": PortalText.text("portal.membership.\(status.rawValue)", visit.language)])
        }
        return try page("start", visit, notice(request, visit.language).merging(["studies": studies, "hasStudies": !studies.isEmpty]) { $1 })
    }

    private func login(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (form, visit) = try await checkedForm(request)
        let login = form["login"]
        do {
            let account = try await accounts.accountForLogin(login: login, password: form["password"], client: context.clientAddress)
            return try await signIn(account, visit)
        } catch let error as APIError where error.code == "account_deactivated" {
            // The password was right (it is checked first), so the person may bring the account back.
            return try page("reactivate", visit, status: .forbidden, ["login": login])
        } catch {
            return try failed("login", visit, error, ["login": login])
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
    private func reactivate(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (form, visit) = try await checkedForm(request)
        let login = form["login"]
        do {
            let account = try await accounts.reactivate(login: login, password: form["password"], client: context.clientAddress)
            return try await signIn(account, visit, notice: "reactivated")
        } catch {
            return try failed("reactivate", visit, error, ["login": login])
        }
    }

    /// A taken address leads to the same page as a new one (``AccountService/register(username:email:password:language:client:)``).
    private func register(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (form, visit) = try await checkedForm(request)
        let echo: [String: Any] = ["username": form["username"], "email": form["email"]]
        guard form["password"] == form["passwordRepeat"] else {
            return try page("register", visit, status: .unprocessableContent,
                            echo.merging(["error": PortalText.text("portal.error.passwordsDiffer", visit.language)]) { $1 })
        }
        do {
            try await accounts.register(username: form["username"], email: form["email"], password: form["password"],
                                        language: visit.language, client: context.clientAddress)
            return visit.redirect(to: "/activate?notice=registered")
        } catch {
            return try failed("register", visit, error, echo)
        }
    }

    private func activate(_ request: Request) async throws -> Response {
        let (form, visit) = try await checkedForm(request)
        do {
            try await accounts.activate(code: form["code"].trimmingCharacters(in: .whitespacesAndNewlines))
            return visit.redirect(to: "/login?notice=activated")
        } catch {
            return try failed("activate", visit, error)
        }
    }

    private func forgotPassword(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (form, visit) = try await checkedForm(request)
        do {
            try await accounts.startPasswordReset(email: form["email"], client: context.clientAddress)
            return visit.redirect(to: "/password/reset?notice=resetMailSent")
        } catch {
            return try failed("forgot", visit, error, ["email": form["email"]])
        }
    }

    private func resetPassword(_ request: Request) async throws -> Response {
        let (form, visit) = try await checkedForm(request)
        guard form["password"] == form["passwordRepeat"] else {
            return try page("reset", visit, status: .unprocessableContent,
                            ["error": PortalText.text("portal.error.passwordsDiffer", visit.language)])
        }
        do {
            try await accounts.confirmPasswordReset(code: form["code"].trimmingCharacters(in: .whitespacesAndNewlines),
                                                    newPassword: form["password"])
            // The reset ended every session; the browser forgets its cookie too.
            return visit.redirect(to: "/login?notice=passwordChanged", setting: [sessions.expiredCookie(secure: visit.secure)])
        } catch {
            return try failed("reset", visit, error)
        }
    }

    private func logout(_ request: Request) async throws -> Response {
        let (_, visit) = try await checkedForm(request)
        if let session = visit.session { try await sessions.end(session) }
        // The page it leads to renews the visitor cookie, which evicts the start page from the
        // browser's back/forward cache (see ``visit(_:renewingVisitorToken:)``).
        return visit.redirect(to: "/login?notice=loggedOut", setting: [sessions.expiredCookie(secure: visit.secure)])
    }

    /// Sets the language cookie and returns to the page the switch was on (a path of this site
    /// only, ``sameSitePath(_:)``, so the form cannot be used to send a visitor elsewhere).
    private func switchLanguage(_ request: Request) async throws -> Response {
        let (form, visit) = try await checkedForm(request)
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
struct PortalRefusal: Error {
    var status: HTTPResponse.Status
    var messageKey: String
}

/// Turns what goes wrong below a portal route into an HTML page in the visitor's language,
/// never the API's JSON and never a stack trace.
struct PortalErrorPages: RouterMiddleware {
    let routes: PortalRoutes

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as PortalRefusal {
            return try await errorPage(request, refusal.status, PortalText.text(refusal.messageKey, PortalRoutes.language(request)))
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            // A form over ``PortalForm/maximumBytes``: the limit in words a person can act on.
            let language = PortalRoutes.language(request)
            let size = PortalText.size(PortalForm.maximumBytes, language)
            return try await errorPage(request, .contentTooLarge, PortalText.text("portal.error.tooLarge", language, ["size": size]))
        } catch {
            if let (status, message) = PortalRoutes.explain(error, PortalRoutes.language(request)) {
                return try await errorPage(request, status, message)
            }
            if let error = error as? any HTTPResponseError, error.status.code < 500 { throw error }
            context.logger.error("portal request failed: \(String(describing: error))")
            return try await errorPage(request, .internalServerError, PortalText.text("portal.error.internal", PortalRoutes.language(request)))
        }
    }

    private func errorPage(_ request: Request, _ status: HTTPResponse.Status, _ message: String) async throws -> Response {
        try await routes.errorPage(request, status, message)
    }
}

extension PortalRoutes {
    /// The error page with a one-line message, in the visitor's language.
    func errorPage(_ request: Request, _ status: HTTPResponse.Status, _ message: String) async throws -> Response {
        let visit = try await visit(request)
        return try page("error", visit, status: status, ["error": message])
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
            var response = try await routes.errorPage(request, error.status, message)
            SecurityHeaders<ServerRequestContext>.apply(to: &response)
            return response
        }
    }
}
