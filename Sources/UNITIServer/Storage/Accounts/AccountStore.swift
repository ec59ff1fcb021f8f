import Foundation
import UNITIProtocol

/// Where accounts, the single-use tokens sent by mail and login sessions are kept. Part of every
/// ``ServerStore``.
///
/// Tokens are stored only as hashes (``SecretTokens/hash(_:)``); the store never sees a token itself.
public protocol AccountStore: Sendable {
    /// Creates an account; throws ``StoreConflict/usernameTaken`` or ``StoreConflict/emailTaken``.
    func createUser(username: String, email: String, passwordHash: String, language: String,
                    pseudonym: String, now: Date) async throws -> Int64
    func user(id: Int64) async throws -> UserAccount?
    /// By e-mail (case-insensitive) or username.
    func user(login: String) async throws -> UserAccount?
    /// One page of all accounts in the order they were made, and how many there are in all.
    func users(offset: Int, limit: Int) async throws -> (users: [UserAccount], total: Int)
    func setActivated(userId: Int64) async throws
    func setActive(userId: Int64, active: Bool) async throws
    func setPasswordHash(userId: Int64, hash: String) async throws
    func updateProfile(userId: Int64, update: ProfileUpdate) async throws

    func storeMailToken(userId: Int64, purpose: MailTokenPurpose, tokenHash: String, expiresAt: Date) async throws
    /// Uses up a token: returns its user once, if the token is known, unused and not expired.
    func consumeMailToken(purpose: MailTokenPurpose, tokenHash: String, now: Date) async throws -> Int64?

    func createSession(userId: Int64, accessHash: String, accessExpiresAt: Date,
                       refreshHash: String, refreshExpiresAt: Date, now: Date) async throws
    /// The session's id and its account for a live access token (one lookup: every request needs it).
    func session(accessHash: String, now: Date) async throws -> (sessionId: Int64, account: UserAccount)?
    /// Swaps a refresh token for a new pair (``SessionRotation``). The session's current refresh
    /// token is swapped, and so is its immediately previous one up to `reuseGrace` seconds after
    /// it was first swapped (the answer to that swap was lost: the app never got the new pair);
    /// the previous one presented later ends the session. Every other token is refused.
    func rotateSession(refreshHash: String, newAccessHash: String, accessExpiresAt: Date,
                       newRefreshHash: String, refreshExpiresAt: Date, now: Date,
                       reuseGrace: TimeInterval) async throws -> SessionRotation
    /// Moves a live session's expiry on to `until`, but never past `maximumAge` after the session
    /// began, and only when that moves it by more than `minimumStep` (so a page read now and then
    /// writes nothing); returns the new expiry when it moved. The portal's sliding session.
    func renewSession(id: Int64, until: Date, maximumAge: TimeInterval, minimumStep: TimeInterval,
                      now: Date) async throws -> Date?
    func revokeSession(id: Int64) async throws
    func revokeSessions(userId: Int64) async throws
    /// Ends every session of the user but one (the one that just changed the password).
    func revokeSessions(userId: Int64, except sessionId: Int64) async throws
}

/// What became of a refresh token presented for a new pair.
///
/// Why the previous token counts for a moment: a refresh rotates on the server before its
/// answer reaches the app, and an answer can be lost (the process killed, the network gone).
/// The app then still holds only the previous token, and without the grace it would be logged
/// out although nothing was wrong. After the grace, the previous token can only come from a copy
/// (OAuth 2.0 Security BCP, refresh token reuse detection): the session ends, so whoever holds
/// the newer pair, thief or not, must log in again with the password. One data directory never
/// presents a spent token itself: its programs refresh one at a time under a lock and take over
/// the pair another one stored (`SessionRefresher` in UNITICore).
public enum SessionRotation: Sendable, Equatable {
    /// A new pair was stored for the session; the presented token is spent.
    case rotated(userId: Int64)
    /// Unknown, expired or revoked: nothing changed.
    case refused
    /// The session's previous refresh token after its grace: the session is revoked.
    case revokedAfterReuse(userId: Int64)
}

/// A participant account as the store keeps it.
public struct UserAccount: Sendable, Hashable {
    public var id: Int64
    public var username: String
    public var email: String
    public var passwordHash: String
    public var firstName: String?
    public var lastName: String?
    public var gender: Gender
    public var language: String
    /// Set once the mailed activation token was used.
    public var activated: Bool
    /// False after the participant deactivated the account.
    public var active: Bool
    /// Stable, random, not derived from the username: what exports show instead of the person.
    public var pseudonym: String
    public var createdAt: Date
}

/// Purposes of the single-use tokens sent by mail.
public enum MailTokenPurpose: String, Sendable {
    case activation, passwordReset
}
