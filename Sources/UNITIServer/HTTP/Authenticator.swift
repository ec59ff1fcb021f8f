import Foundation
import Hummingbird
import HummingbirdAuth

/// The caller of a route that needs an account: the identity ``BearerAuthenticator`` puts on the
/// request context, read by handlers as `context.user`.
public struct AuthenticatedUser: Sendable {
    public var account: UserAccount
    public var sessionId: Int64
}

/// Resolves `Authorization: Bearer <token>` to a live session of an active account, once per
/// request and before any handler, so that no handler reads a token. A request without a valid
/// token goes on without an identity; ``RequireAuthentication`` on the group answers it.
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext
    let environment: ServerEnvironment

    func authenticate(request: Request, context: ServerRequestContext) async throws -> AuthenticatedUser? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.count <= 256 else { return nil }
        guard let session = try await environment.store.session(accessHash: SecretTokens.hash(token), now: environment.clock.now()),
              session.account.active else {
            return nil
        }
        return AuthenticatedUser(account: session.account, sessionId: session.sessionId)
    }
}
