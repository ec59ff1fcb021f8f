import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol

/// An error the API answers with: an HTTP status, a stable machine code and one human line.
/// Thrown anywhere below a route; as an `HTTPResponseError` it answers itself with
/// `{"error": {...}}` (``response(from:context:)``), and the portal shows it as a page.
public struct APIError: HTTPResponseError, Sendable, Equatable {
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

/// A refusal of a service (``StudyAdministration`` and its siblings) reaches a `uniti-server`
/// subcommand as this error, and the command line prints its one line (`Error: …`) as the console
/// shows the same refusal's line from the string tables (`console.error.<code>`).
extension APIError: CustomStringConvertible {
    public var description: String { message }
}

extension APIError {
    /// The JSON error body with the status and the extra headers.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = (try? JSONCoding.data(APIErrorBody(code: code, message: message))) ?? Data()
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
