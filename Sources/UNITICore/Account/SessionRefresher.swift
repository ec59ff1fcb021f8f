import Foundation
import UNITIProtocol

/// Keeps the stored session's access token alive for every request of every program on a data
/// directory (the shell in two terminals, a script, the shell's background sync): it renews the
/// token shortly before it ends (``Session/needsRenewal(at:)``), and once more when the server
/// answers 401 anyway, with the refresh token at `/account/refresh`.
///
/// Every renewal runs under the data directory's `session` lock and starts by reading the
/// stored session again: a program that waited while another renewed finds the new pair and
/// uses it, instead of spending the refresh token the other one already spent (the server would
/// take that for a copied token and end the session). The new pair replaces the old one in one
/// transaction, and only while the old one is still stored (a logout or a new login meanwhile
/// wins).
///
/// What a renewal that fails leaves: a refusal (401: revoked, expired, password changed,
/// account deactivated) ends the login here too, and the person is asked to log in again; a
/// network error or a server error leaves the session and everything queued as it is, to try
/// again later (offline is normal).
public struct SessionRefresher: Sendable {
    let sessions: SessionStore
    let transport: any HTTPTransport
    /// The API's base (`…/api/v1`).
    let baseURL: URL

    /// How long a program waits for another one's renewal (a request takes at most the
    /// transport's timeout, 15 s); after that the request fails as a network problem would.
    static let lockPatience: TimeInterval = 45

    /// The access token to send now: the stored one, renewed first when it is about to end;
    /// nil without a session.
    func accessToken() throws -> String? {
        guard let session = try sessions.current() else { return nil }
        guard session.needsRenewal(at: sessions.clock.now) else { return session.accessToken }
        do {
            return try renewed { $0.needsRenewal(at: sessions.clock.now) }?.accessToken
        } catch let error as APIError where error.isTransient {
            // Not ended yet: the request may still go through, and the renewal is tried again
            // with the next one.
            return session.accessToken
        }
    }

    /// The token to send again after the server refused `refused` (401): the one another program
    /// stored meanwhile, or a renewed one. Throws `unauthorized` when the server refused the
    /// renewal too (the session is then forgotten) or when there is no session.
    func tokenAfterRefusal(of refused: String?) throws -> String {
        let session = try renewed { $0.accessToken == refused }
        guard let session else {
            // Refused without any session: this needs an account, not "log in again".
            throw refused == nil ? APIError.notLoggedIn : APIError.sessionEnded
        }
        return session.accessToken
    }

    /// Under the lock: the stored session, renewed first when `stale` says so (the stored one
    /// is taken as it is otherwise: another program renewed it meanwhile). nil without a session.
    private func renewed(when stale: (Session) -> Bool) throws -> Session? {
        let lock = sessions.dataDirectory.lock("session")
        guard try lock.acquire(timeout: Self.lockPatience) else {
            throw APIError.unreachable(L("core.session.renewalBusy", ["pid": lock.holder.map(String.init) ?? "?"]))
        }
        defer { lock.release() }
        guard let stored = try sessions.current() else { return nil }
        guard stale(stored) else { return stored }
        let askedAt = sessions.clock.now
        let tokens: SessionTokens
        do {
            tokens = try APIClient(baseURL: baseURL, token: nil, transport: transport)
                .send("POST", "account/refresh", body: RefreshRequest(refreshToken: stored.refreshToken))
        } catch APIError.unauthorized {
            try sessions.replace(refreshToken: stored.refreshToken, with: nil)
            throw APIError.sessionEnded
        }
        let session = stored.renewed(with: tokens, obtainedAt: askedAt)
        // Only over the session it renewed: a logout or another login meanwhile stays.
        return try sessions.replace(refreshToken: stored.refreshToken, with: session) ? session : sessions.current()
    }
}
