import Foundation
import Hummingbird

/// What one request to the portal knows about its visitor: the language, the session (if
/// logged in), the CSRF token its forms carry, and the cookies the response must set (a new
/// visitor's double-submit cookie). Built once per request by ``PortalSessionMiddleware``.
package struct PortalVisit: Sendable {
    package var language: String
    package var session: PortalSession?
    package var csrfToken: String
    /// Whether the page came over TLS (directly or, behind a proxy, per `X-Forwarded-Proto`).
    package var secure: Bool
    package var path: String
    /// The visitor's time zone (`/portal.js` keeps it in a cookie), for times a module's pages
    /// show and read in the person's own wall-clock time.
    package var timeZone: TimeZone = .current
    package var cookies: [Cookie] = []
    /// The module parts' entries in the navigation (``ServerModulePart/portalNavigation``).
    package var navigation: [PortalLink] = []

    /// The cookie `/portal.js` keeps the browser's time zone in (an IANA name such as
    /// `Europe/Berlin`): a record's time typed or shown here is the person's wall-clock time, not
    /// the server's. Without it (no script yet, or none at all) the server's own zone is used.
    package static let timeZoneCookie = "uniti_zone"

    /// The zone a cookie names, nil for anything that is no known zone.
    package static func timeZone(cookie: String?) -> TimeZone? {
        guard let cookie, (1...64).contains(cookie.utf8.count),
              let name = cookie.removingPercentEncoding, let zone = TimeZone(identifier: name) else { return nil }
        return zone
    }

    /// An HTML response with the visit's pending cookies.
    package func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        var response = Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: body)))
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// A 303 to a portal path (after a form: reloading the result never sends the form again).
    package func redirect(to path: String, setting extra: [Cookie] = []) -> Response {
        var response = Response(status: .seeOther, headers: [.location: path])
        for cookie in cookies + extra { response.setCookie(cookie) }
        return response
    }
}
