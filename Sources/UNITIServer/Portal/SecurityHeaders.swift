import HTTPTypes
import Hummingbird

/// The headers every portal response carries, set in one place so no page can forget them:
/// a Content-Security-Policy that allows only this origin's style sheet, forms and script files
/// (`/portal.js`; no inline script or event handler, so an injected `<script>` or `onerror=`
/// would not run even if escaping failed), no framing
/// (clickjacking), no MIME sniffing, no Referer leaving the site, and `no-store` so that after
/// logout the back button cannot show a private page from the cache.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    static var frameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        Self.apply(to: &response)
        return response
    }

    /// Sets the headers on a portal response made outside the portal's routes (``PortalFallbackPages``).
    static func apply(to response: inout Response) {
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[Self.frameOptions] = "DENY"
        if response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
    }
}
