import Foundation
import HTTPTypes
import Hummingbird
import Logging
import UNITIProtocol

/// Turns every error below it into the JSON error body, so that no route answers with HTML, an
/// empty body or a stack trace. ``APIError`` answers itself; this translates what is not one:
/// Hummingbird's own errors (404, 405, 413), decoding errors, store conflicts, and unknown
/// errors, which become 500 `internal_error` and are logged.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try Self.apiError(error, logger: context.logger).response(from: request, context: context)
        }
    }

    static func apiError(_ error: any Error, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError:
            return translate(error)
        case let error as any HTTPResponseError:
            // e.g. NIOTooManyBytesError when a body passes the upload limit.
            return translate(HTTPError(error.status))
        case let error as DecodingError:
            return APIError(.badRequest, "invalid_body", APIRequestDecoder.describe(error))
        case let conflict as StoreConflict:
            return conflict.apiError
        default:
            logger.error("request failed: \(String(describing: error))")
            return APIError(.internalServerError, "internal_error", "The server failed; try again later.")
        }
    }

    static func translate(_ error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: return APIError(.notFound, "not_found", "No such route; see /api/v1/openapi.yaml.")
        case .contentTooLarge: return APIError(.contentTooLarge, "body_too_large", "The request body is larger than \(ServerLimits.maximumBodyBytes) bytes; send smaller batches.")
        case .methodNotAllowed: return APIError(.methodNotAllowed, "method_not_allowed", "This route does not accept this method.")
        case .badRequest: return APIError(.badRequest, "bad_request", error.body ?? "The request is malformed.")
        default: return APIError(error.status, APIErrorCode.httpStatus(error.status.code), error.body ?? error.status.reasonPhrase)
        }
    }
}

extension StoreConflict {
    /// The API's answer to the conflict (the portal and the console word its code: ``WebSurface/explain(_:_:)``).
    var apiError: APIError {
        switch self {
        case .usernameTaken: APIError(.conflict, "username_taken", "This username is taken; choose another.")
        case .emailTaken: APIError(.conflict, "email_taken", "An account with this e-mail address exists; log in or reset the password.")
        case .studyExists: APIError(.conflict, "study_exists", "A study with this id exists already.")
        }
    }
}
