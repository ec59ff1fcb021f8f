import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol

/// Turns every error below it into the JSON error body, so that no route answers with HTML, an
/// empty body or a stack trace. Unknown errors become 500 `internal_error` and are logged.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return Self.response(error)
        } catch let error as HTTPError {
            return Self.response(Self.translate(error))
        } catch let error as any HTTPResponseError {
            // e.g. NIOTooManyBytesError when a body passes the upload limit.
            return Self.response(Self.translate(HTTPError(error.status)))
        } catch let error as DecodingError {
            return Self.response(APIError(.badRequest, "invalid_body", Self.describe(error)))
        } catch StoreConflict.usernameTaken {
            return Self.response(APIError(.conflict, "username_taken", "This username is taken; choose another."))
        } catch StoreConflict.emailTaken {
            return Self.response(APIError(.conflict, "email_taken", "An account with this e-mail address exists; log in or reset the password."))
        } catch {
            context.logger.error("request failed: \(String(describing: error))")
            return Self.response(APIError(.internalServerError, "internal_error", "The server failed; try again later."))
        }
    }

    static func translate(_ error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: return APIError(.notFound, "not_found", "No such route; see /api/v1/openapi.yaml.")
        case .contentTooLarge: return APIError(.contentTooLarge, "body_too_large", "The request body is larger than \(ServerLimits.maximumBodyBytes) bytes; send smaller batches.")
        case .methodNotAllowed: return APIError(.methodNotAllowed, "method_not_allowed", "This route does not accept this method.")
        case .badRequest: return APIError(.badRequest, "bad_request", error.body ?? "The request is malformed.")
        default: return APIError(error.status, "http_\(error.status.code)", error.body ?? error.status.reasonPhrase)
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let names = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "the body" : names.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "Missing field '\(key.stringValue)'" + (parent == "the body" ? "." : " in \(parent).")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "Wrong type at \(path(context))."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "The body is not valid JSON." : "Invalid value at \(path(context))."
        @unknown default:
            return "The body could not be read."
        }
    }

    static func response(_ error: APIError) -> Response {
        let data = (try? JSONCoding.data(APIErrorBody(code: error.code, message: error.message))) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        for (name, value) in error.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
