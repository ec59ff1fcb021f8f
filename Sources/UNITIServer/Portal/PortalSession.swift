import Foundation
import Hummingbird

/// A browser logged in to the portal: the account, the row in `sessions`, and the stored hash of
/// the cookie's secret (what the CSRF token is derived from).
package struct PortalSession: Sendable {
    package var account: UserAccount
    package var id: Int64
    package var storedHash: String
    /// The session's new end when this request moved it on (the cookie is set again to match).
    package var renewedUntil: Date?
}

/// Portal logins kept in the same `sessions` table as the API's tokens, and like them only as a
/// SHA-256 hash (``SecretTokens``): a stolen database opens no browser session, and logout,
/// a password reset or a password change end portal sessions exactly as they end app sessions.
///
/// The cookie's secret is hashed with a `portal-session:` prefix, so a session cookie is no API
/// bearer token and an API token is no session cookie. A session row never gets a usable
/// refresh token (its refresh hash is of a secret nobody keeps, already expired).
///
/// A session slides as the app's tokens do: every page moves its end to `lifetime` from now, so
/// a person using the portal stays signed in, and one who leaves it for `lifetime` is signed
/// out; however much it is used, it ends `refreshTokenLifetime` after the login (30 days, as a
/// refresh token unused), when the password is asked again.
struct PortalSessions: Sendable {
    package static let cookieName = "uniti_session"
    package let environment: ServerEnvironment
    /// How long a portal session lasts without a page being asked for; the cookie's Max-Age and
    /// the row's expiry agree, and move on together.
    package let lifetime: TimeInterval

    /// How far a session's end must move before a page writes it: one write per step of use,
    /// not one per page.
    package var renewalStep: TimeInterval { min(lifetime / 10, 15 * 60) }

    /// How long a login lasts at first: the idle lifetime, or less when the server's refresh
    /// lifetime (the longest any session lasts) is shorter.
    package var firstLifetime: TimeInterval { min(lifetime, environment.refreshTokenLifetime) }

    package static func storedHash(of secret: String) -> String {
        SecretTokens.hash("portal-session:" + secret)
    }

    /// Starts a session for the account; returns the secret for the cookie (never stored).
    package func start(userId: Int64) async throws -> String {
        let now = environment.clock.now()
        let secret = SecretTokens.generate()
        try await environment.store.createSession(
            userId: userId, accessHash: Self.storedHash(of: secret), accessExpiresAt: now.addingTimeInterval(firstLifetime),
            refreshHash: SecretTokens.hash(SecretTokens.generate()), refreshExpiresAt: now, now: now)
        return secret
    }

    /// The live session the request's cookie names, if any, of an active account, moved on
    /// (see ``renewalStep``).
    package func current(_ request: Request) async throws -> PortalSession? {
        guard let secret = request.cookies[Self.cookieName]?.value, !secret.isEmpty, secret.count <= 256 else { return nil }
        let hash = Self.storedHash(of: secret)
        let now = environment.clock.now()
        guard let found = try await environment.store.session(accessHash: hash, now: now),
              found.account.active else { return nil }
        let renewed = try await environment.store.renewSession(
            id: found.sessionId, until: now.addingTimeInterval(lifetime), maximumAge: environment.refreshTokenLifetime,
            minimumStep: renewalStep, now: now)
        return PortalSession(account: found.account, id: found.sessionId, storedHash: hash, renewedUntil: renewed)
    }

    /// The cookie set again with a renewed session's new end; nil when the request did not move it.
    package func renewedCookie(_ session: PortalSession, _ request: Request, secure: Bool) -> Cookie? {
        guard let until = session.renewedUntil, let secret = request.cookies[Self.cookieName]?.value else { return nil }
        return cookie(secret: secret, secure: secure, maxAge: until.timeIntervalSince(environment.clock.now()))
    }

    package func end(_ session: PortalSession) async throws {
        try await environment.store.revokeSession(id: session.id, now: environment.clock.now())
    }

    /// The session cookie: HttpOnly (no script reads it), SameSite=Lax (no cross-site POST
    /// carries it), Secure whenever the page came over TLS.
    package func cookie(secret: String, secure: Bool, maxAge: TimeInterval? = nil) -> Cookie {
        Cookie(name: Self.cookieName, value: secret, maxAge: Int(maxAge ?? firstLifetime), path: "/", secure: secure,
               httpOnly: true, sameSite: .lax)
    }

    /// Tells the browser to drop the session cookie.
    package func expiredCookie(secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
