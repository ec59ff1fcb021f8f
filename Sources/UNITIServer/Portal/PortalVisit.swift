import Foundation
import Hummingbird

/// What one request to the portal knows about its visitor: the language, the session (if
/// logged in), the CSRF token its forms carry, and the cookies the response must set (a new
/// visitor's double-submit cookie). Built once per request by ``PortalSessionMiddleware``.
struct PortalVisit: Sendable {
    var language: String
    var session: PortalSession?
    var csrfToken: String
    /// Whether the page came over TLS (directly or, behind a proxy, per `X-Forwarded-Proto`).
    var secure: Bool
    var path: String
    /// The visitor's time zone, for the health record's times (``RecordClock``).
    var timeZone: TimeZone = .current
    var cookies: [Cookie] = []

    /// The cookie `/portal.js` keeps the browser's time zone in (an IANA name such as
    /// `Europe/Berlin`): a record's time typed or shown here is the person's wall-clock time, not
    /// the server's. Without it (no script yet, or none at all) the server's own zone is used.
    static let timeZoneCookie = "uniti_zone"

    /// The zone a cookie names, nil for anything that is no known zone.
    static func timeZone(cookie: String?) -> TimeZone? {
        guard let cookie, (1...64).contains(cookie.utf8.count),
              let name = cookie.removingPercentEncoding, let zone = TimeZone(identifier: name) else { return nil }
        return zone
    }

    /// Reads and writes record times in the visitor's zone.
    var recordClock: RecordClock { RecordClock(timeZone: timeZone) }

    /// An HTML response with the visit's pending cookies.
    func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        var response = Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: body)))
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// A 303 to a portal path (after a form: reloading the result never sends the form again).
    func redirect(to path: String, setting extra: [Cookie] = []) -> Response {
        var response = Response(status: .seeOther, headers: [.location: path])
        for cookie in cookies + extra { response.setCookie(cookie) }
        return response
    }
}
