import Foundation
import HTTPTypes
import Hummingbird

/// A signed-in staff member: the member, the `staff_sessions` row and its stored hash (what the
/// console's CSRF token is derived from).
struct StaffSession: Sendable {
    var member: StaffMember
    var id: Int64
    var storedHash: String
}

/// Console sign-ins, apart from the portal's in every way a browser can tell: their own table
/// (`staff_sessions`), their own cookie (`uniti_staff`, `Path=/console`, `SameSite=Strict`,
/// HttpOnly), their own hash prefix. A session ends at sign-out, at a password change and after
/// ``idle`` without a page (30 minutes; the store ends it for good then, so moving a clock back
/// does not revive it).
struct StaffSessions: Sendable {
    static let cookieName = "uniti_staff"
    static let path = "/console"
    let environment: ServerEnvironment
    let idle: TimeInterval

    static func storedHash(of secret: String) -> String {
        SecretTokens.hash("staff-session:" + secret)
    }

    /// Starts a session; returns the secret for the cookie (never stored).
    func start(staffId: Int64) async throws -> String {
        let secret = SecretTokens.generate()
        _ = try await environment.store.createStaffSession(staffId: staffId, tokenHash: Self.storedHash(of: secret),
                                                           now: environment.clock.now())
        return secret
    }

    /// The live session the request's cookie names, its idle time restarted.
    func current(_ request: Request) async throws -> StaffSession? {
        guard let secret = request.cookies[Self.cookieName]?.value, !secret.isEmpty, secret.count <= 256 else { return nil }
        let hash = Self.storedHash(of: secret)
        guard let found = try await environment.store.staffSession(tokenHash: hash, idle: idle, now: environment.clock.now()),
              found.member.enrolled else { return nil }
        return StaffSession(member: found.member, id: found.sessionId, storedHash: hash)
    }

    func end(_ session: StaffSession) async throws {
        try await environment.store.endStaffSession(id: session.id, now: environment.clock.now())
    }

    /// The session cookie: for the console's paths only, never sent with a request another site
    /// starts (Strict), unreadable by script, Secure over TLS. No Max-Age: the server decides.
    func cookie(secret: String, secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: secret, path: Self.path, secure: secure, httpOnly: true, sameSite: .strict)
    }

    func expiredCookie(secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: Self.path, secure: secure, httpOnly: true, sameSite: .strict)
    }
}

/// What one console request knows of its visitor: the portal's visit values (language, CSRF
/// token, TLS, cookies to set; its participant session always nil) and the staff session.
struct ConsoleVisit: Sendable {
    var base: PortalVisit
    var staff: StaffSession?
    var language: String { base.language }
}

/// The study a `/console/studies/{id}` route works on and the member's role there.
struct ConsoleStudy: Sendable {
    var study: StudyRecord
    var role: StudyRole
    /// The site the member's role holds at (nil: study-wide): they reach the pages a site's
    /// staff may open (``ConsolePage/forSiteStaff``) and, on them, their site's participants only.
    var site: String? = nil

    /// What the member may do with sites (``StudySites``).
    var scope: StudySites.Scope { StudySites.Scope(role: role, site: site) }

    /// Whether a participant is within the member's reach: everyone for study-wide staff, their
    /// own site's participants for a site's staff.
    func reaches(_ person: StudyParticipant) -> Bool { scope.reaches(person.site) }
}

/// Resolves the staff cookie once per console request and puts the visit on the context.
struct ConsoleVisitMiddleware: RouterMiddleware {
    static var visitorCookie: String { WebSurface.console.visitorCookie }
    let routes: ConsoleRoutes

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        let staff = try await routes.sessions.current(request)
        let base = WebSurface.console.visit(request, context, csrf: try await routes.csrfKeys.csrf(), sessionHash: staff?.storedHash)
        context.consoleVisit = ConsoleVisit(base: base, staff: staff)
        return try await next(request, context)
    }
}

extension CSRFCheck {
    /// The console's forms: the staff session's token, or the signed double-submit cookie
    /// before sign-in.
    static func console(_ keys: CSRFKeys) -> CSRFCheck {
        CSRFCheck(keys: keys, visitorCookie: ConsoleVisitMiddleware.visitorCookie, sessionHash: { try $0.console.staff?.storedHash },
                  refusal: { ConsoleRefusal(.forbidden, "console.error.csrf") })
    }
}

/// The gate of every page behind sign-in: without a staff session, the sign-in page.
struct RequireStaffSignIn: RouterMiddleware {
    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        guard context.consoleVisit?.staff != nil else { return ConsoleRoutes.toSignIn }
        return try await next(request, context)
    }
}

/// The gate of every study page (``ConsoleAccess/study(_:)``): the member's role in that study
/// (``ConsoleAccess/role(of:stored:)``: an administrator is owner of every study) must be at
/// least the page's `minimum`. A study they have no role in, or that does not exist, is 404 with
/// the same page, so a URL tells nothing about a study of another team; a role too low for the
/// page is 403. A member held to a site (``ServerStore/staffSite(staffId:studyId:)``; never an
/// owner or an administrator) reaches only the pages that keep to a site (`forSiteStaff`); any
/// other is 403 with a page that says so.
struct ConsoleStudyAccess: RouterMiddleware {
    let store: ServerStore
    let minimum: StudyRole
    let forSiteStaff: Bool
    /// Only members whose role is exactly `minimum` (``ConsolePage/exactRole``).
    let exactRole: Bool

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        let member = try context.staff.member
        guard let studyId = context.parameters.get("study"), StudyRules.isValidId(studyId),
              let study = try await store.study(id: studyId) else { throw ConsoleRefusal(.notFound, "console.error.notFound") }
        guard let role = ConsoleAccess.role(of: member, stored: try await store.studyRole(staffId: member.id, studyId: studyId)) else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        guard exactRole ? role == minimum : role >= minimum else { throw ConsoleRefusal(.forbidden, "console.error.role") }
        let site = role == .owner ? nil : try await store.staffSite(staffId: member.id, studyId: studyId)
        guard site == nil || forSiteStaff else { throw ConsoleRefusal(.forbidden, "console.error.siteOnly") }
        var context = context
        context.consoleStudy = ConsoleStudy(study: study, role: role, site: site)
        return try await next(request, context)
    }
}

/// The gate of an administrator's pages (``ConsoleAccess/administrator``): anyone else is refused
/// with the role's 403 page.
struct RequireAdministrator: RouterMiddleware {
    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        guard try context.staff.member.admin else { throw ConsoleRefusal(.forbidden, "console.error.role") }
        return try await next(request, context)
    }
}

/// A request the console refuses with a page (a forged form, a study out of reach, a role too low).
struct ConsoleRefusal: Error {
    var status: HTTPResponse.Status
    var messageKey: String

    init(_ status: HTTPResponse.Status, _ messageKey: String) {
        self.status = status
        self.messageKey = messageKey
    }
}

extension ServerRequestContext {
    var console: ConsoleVisit {
        get throws {
            guard let consoleVisit else { throw ConsoleRefusal(.internalServerError, "console.error.internal") }
            return consoleVisit
        }
    }

    /// The signed-in member (``RequireStaffSignIn`` made sure there is one).
    var staff: StaffSession {
        get throws {
            guard let staff = consoleVisit?.staff else { throw ConsoleRefusal(.unauthorized, "console.error.signIn") }
            return staff
        }
    }

}
