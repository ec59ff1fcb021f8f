import Foundation
import Hummingbird

/// Resolves the portal's session cookie once per request, before any handler: the visit
/// (language, the signed-in person if any, the CSRF token of the page's forms, the cookies the
/// response must set) goes on the request context; the pages' own contexts (``PortalContext``,
/// ``ParticipantContext``) take it from there, so handlers read `context.visit` and, on the
/// signed-in routes, `context.participant`, neither of them optional.
///
/// hummingbird-auth's `SessionMiddleware` keeps its own session values under a cookie in a
/// persist driver; ours are rows of the `sessions` table shared with the API (hashed, ended by
/// logout, password reset or change on every device), sliding with a 30-day cap, and the cookie
/// is set again when a request moves the end (``PortalSessions``). So the portal keeps its own
/// middleware of the same shape: resolve once, put the identity on the context, let a route group
/// say that it needs one (``RequirePortalSignIn``).
struct PortalSessionMiddleware: RouterMiddleware {
    let routes: PortalRoutes

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        // The form pages after logout give a new double-submit cookie (see ``PortalRoutes/visit(_:renewingVisitorToken:)``).
        let loggedOut = request.method == .get && request.uri.queryParameters["notice"] == "loggedOut"
        context.portalVisit = try await routes.visit(request, context, renewingVisitorToken: loggedOut)
        return try await next(request, context)
    }
}

/// The gate of the signed-in pages: a visitor without a session is sent to the login page (a
/// 303, as a browser follows it) instead of reaching the handler.
struct RequirePortalSignIn: RouterMiddleware {
    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        guard context.portalVisit?.session != nil else { return PortalRoutes.toLogin }
        return try await next(request, context)
    }
}

/// Every form the portal or the console accepts carries the CSRF field (``CSRF``): checked
/// here, before the handler, for every method that may change something; a missing or wrong
/// token is the 403 page and the handler never runs. The two differ only in whose session the
/// token is tied to, the visitor cookie before sign-in, and the refusal page (``portal(_:)``,
/// ``console(_:)``). Runs after the session middleware and, on signed-in pages, before the
/// sign-in gate, so a forged form is refused as forged whether or not a session came with it.
struct CSRFCheck: RouterMiddleware {
    let keys: CSRFKeys
    let visitorCookie: String
    let sessionHash: @Sendable (ServerRequestContext) throws -> String?
    let refusal: @Sendable () -> any Error

    static func portal(_ keys: CSRFKeys) -> CSRFCheck {
        CSRFCheck(keys: keys, visitorCookie: CSRF.visitorCookie, sessionHash: { try $0.visit.session?.storedHash },
                  refusal: { PortalRefusal(status: .forbidden, messageKey: "portal.error.csrf") })
    }

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        return try await next(try await keys.checkedForm(request, sessionHash: try sessionHash(context),
                                                         visitorCookie: visitorCookie, refusal: refusal()), context)
    }
}

/// A signed-in page reached without a session (a page put outside the signed-in group, where
/// ``ParticipantContext`` cannot be made): answered with the login redirect.
struct PortalSignInRequired: Error {}

extension ServerRequestContext {
    /// The portal visit ``PortalSessionMiddleware`` resolved for this request.
    package var visit: PortalVisit {
        get throws {
            guard let portalVisit else { throw PortalSignInRequired() }
            return portalVisit
        }
    }

}
