import Foundation
import Hummingbird

/// The caller of a route that needs an account.
struct AuthenticatedUser: Sendable {
    var account: UserAccount
    var sessionId: Int64
}

/// Resolves `Authorization: Bearer <token>` to a live session of an active account.
struct Authenticator: Sendable {
    let environment: ServerEnvironment

    func user(_ request: Request) async throws -> AuthenticatedUser {
        guard let header = request.headers[.authorization] else { throw APIError.unauthorized }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw APIError.unauthorized }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.count <= 256 else { throw APIError.unauthorized }
        let store = environment.store
        guard let session = try await store.session(accessHash: SecretTokens.hash(token), now: environment.clock.now()),
              session.account.active else {
            throw APIError.unauthorized
        }
        return AuthenticatedUser(account: session.account, sessionId: session.sessionId)
    }
}
