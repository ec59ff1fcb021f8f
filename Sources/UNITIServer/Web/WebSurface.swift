import Foundation
import HTTPTypes
import Hummingbird
import UNITIText

/// What the two browser doors, the participant portal and the staff console, share of a visit:
/// the visitor's language, the CSRF token a page's forms carry (the session's, or a signed
/// double-submit value in a cookie of the door's own), the notice named after a redirect and the
/// one line for an error a person can act on. Each door is one value (``portal``, ``console``);
/// what differs is data (the strings' prefix, the cookie's name, path and `SameSite`), so a rule
/// of the visit is written once.
struct WebSurface: Sendable {
    /// The strings' prefix: `<name>.error.<code>`, `<name>.notice.<name>`.
    let name: String
    /// The double-submit cookie of a visitor without a session.
    let visitorCookie: String
    let cookiePath: String
    let sameSite: Cookie.SameSite

    static let portal = WebSurface(name: "portal", visitorCookie: CSRF.visitorCookie, cookiePath: "/", sameSite: .lax)
    static let console = WebSurface(name: "console", visitorCookie: "uniti_console_csrf", cookiePath: StaffSessions.path,
                                    sameSite: .strict)

    /// The visitor's language, from the switch's cookie or `Accept-Language` (``PortalText``).
    static func language(_ request: Request) -> String {
        PortalText.language(cookie: request.cookies[PortalText.languageCookie]?.value, acceptLanguage: request.headers[.acceptLanguage])
    }

    /// A visit's values: language, TLS, and the forms' CSRF token: the session's (`sessionHash`)
    /// when there is one, else the visitor cookie's signed value, else a new one with its cookie
    /// (also when `renewingVisitorToken`, for the page after logout: ``PortalRoutes/visit(_:_:renewingVisitorToken:)``).
    func visit(_ request: Request, _ context: ServerRequestContext, csrf: CSRF, sessionHash: String?,
               renewingVisitorToken: Bool = false) -> PortalVisit {
        let secure = context.overTLS
        var visit = PortalVisit(language: Self.language(request), session: nil, csrfToken: "", secure: secure, path: request.uri.path)
        if let sessionHash {
            visit.csrfToken = csrf.token(sessionHash: sessionHash)
        } else if !renewingVisitorToken, let existing = request.cookies[visitorCookie]?.value, csrf.isSigned(visitorToken: existing) {
            visit.csrfToken = existing
        } else {
            visit.csrfToken = csrf.newVisitorToken()
            visit.cookies.append(Cookie(name: visitorCookie, value: visit.csrfToken, path: cookiePath, secure: secure, httpOnly: true,
                                        sameSite: sameSite))
        }
        return visit
    }

    /// A notice named in the query after a redirect (`?notice=activated`): the text of
    /// `<name>.notice.<notice>`; a name without such a string (or not a plain word) shows
    /// nothing, so a crafted link cannot put words on a page.
    func notice(_ request: Request, _ language: String) -> String? {
        guard let notice = request.uri.queryParameters["notice"].map(String.init), !notice.isEmpty,
              notice.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        let key = "\(name).notice.\(notice)"
        let text = PortalText.text(key, language)
        return text == key ? nil : text
    }

    /// The status and the line for an error a person can act on: the API code names the string
    /// (`<name>.error.<code>`; a code the tables do not word yet shows the server's own line,
    /// never an empty one); nil for errors that are no fault of theirs.
    func explain(_ error: any Error, _ language: String) -> (HTTPResponse.Status, String)? {
        let apiError: APIError
        switch error {
        case let error as APIError: apiError = error
        case let conflict as StoreConflict: apiError = conflict.apiError
        default: return nil
        }
        let key = "\(name).error.\(apiError.code)"
        let text = PortalText.text(key, language, ["seconds": apiError.headers["Retry-After"] ?? ""])
        guard text == key else { return (apiError.status, text) }
        return (apiError.status, apiError.message.isEmpty ? PortalText.text("\(name).error.title", language) : apiError.message)
    }
}
