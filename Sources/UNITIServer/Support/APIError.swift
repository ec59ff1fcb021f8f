import Hummingbird
import UNITIProtocol

/// An error the API answers with: an HTTP status, a stable machine code and one human line.
/// Thrown anywhere below a route; `APIErrorMiddleware` turns it into `{"error": {...}}`.
public struct APIError: Error, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Extra response headers (e.g. `Retry-After`).
    public var headers: [String: String] = [:]

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code, message) }
    static func invalid(_ code: String, _ message: String) -> APIError { APIError(.unprocessableContent, code, message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, "not_found", message) }
    static let unauthorized = APIError(.unauthorized, "unauthorized", "Send a valid access token as 'Authorization: Bearer <token>'; log in again if it expired.")
}
