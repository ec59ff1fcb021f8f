import Foundation
import Hummingbird

/// A browser logged in to the portal: the account, the row in `sessions`, and the stored hash of
/// the cookie's secret (what the CSRF token is derived from).
struct PortalSession: Sendable {
    var account: UserAccount
    var id: Int64
    var storedHash: String
}

/// Portal logins kept in the same `sessions` table as the API's tokens, and like them only as a
/// SHA-256 hash (``SecretTokens``): a stolen database opens no browser session, and logout,
/// a password reset or a password change end portal sessions exactly as they end app sessions.
///
/// The cookie's secret is hashed with a `portal-session:` prefix, so a session cookie is no API
/// bearer token and an API token is no session cookie. A session row never gets a usable
/// refresh token (its refresh hash is of a secret nobody keeps, already expired).
struct PortalSessions: Sendable {
    static let cookieName = "uniti_session"
    let environment: ServerEnvironment
    /// How long a portal login lasts; the cookie's Max-Age and the row's expiry agree.
    let lifetime: TimeInterval

    static func storedHash(of secret: String) -> String {
        SecretTokens.hash("portal-session:" + secret)
    }

    /// Starts a session for the account; returns the secret for the cookie (never stored).
    func start(userId: Int64) async throws -> String {
        let now = environment.clock.now()
        let secret = SecretTokens.generate()
        try await environment.store.createSession(
            userId: userId, accessHash: Self.storedHash(of: secret), accessExpiresAt: now.addingTimeInterval(lifetime),
            refreshHash: SecretTokens.hash(SecretTokens.generate()), refreshExpiresAt: now, now: now)
        return secret
    }

    /// The live session the request's cookie names, if any, of an active account.
    func current(_ request: Request) async throws -> PortalSession? {
        guard let secret = request.cookies[Self.cookieName]?.value, !secret.isEmpty, secret.count <= 256 else { return nil }
        let hash = Self.storedHash(of: secret)
        guard let found = try await environment.store.session(accessHash: hash, now: environment.clock.now()),
              found.account.active else { return nil }
        return PortalSession(account: found.account, id: found.sessionId, storedHash: hash)
    }

    func end(_ session: PortalSession) async throws {
        try await environment.store.revokeSession(id: session.id, now: environment.clock.now())
    }

    /// The session cookie: HttpOnly (no script reads it), SameSite=Lax (no cross-site POST
    /// carries it), Secure whenever the page came over TLS.
    func cookie(secret: String, secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: secret, maxAge: Int(lifetime), path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// Tells the browser to drop the session cookie.
    func expiredCookie(secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
