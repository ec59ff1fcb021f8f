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
    /// Sets a new password hash and, in the same transaction, cancels the account's open reset
    /// codes: a code asked for before the change must not undo it.
    func setPasswordHash(userId: Int64, hash: String, now: Date) async throws
    func updateProfile(userId: Int64, update: ProfileUpdate) async throws

    /// Keeps a new mailed code and, in the same transaction, cancels the account's other open codes
    /// of the purpose: only the newest code works (whoever saw an older mail cannot use it).
    func storeMailToken(userId: Int64, purpose: MailTokenPurpose, tokenHash: String, expiresAt: Date, now: Date) async throws
    /// Uses up a token: returns its user once, if the token is known, unused, not cancelled and not
    /// expired; in the same transaction cancels the account's other open codes of the purpose.
    func consumeMailToken(purpose: MailTokenPurpose, tokenHash: String, now: Date) async throws -> Int64?

    func createSession(userId: Int64, accessHash: String, accessExpiresAt: Date,
                       refreshHash: String, refreshExpiresAt: Date, now: Date) async throws
    /// The session's id and its account for a live access token (one lookup: every request needs it).
    func session(accessHash: String, now: Date) async throws -> (sessionId: Int64, account: UserAccount)?
    /// Swaps a live refresh token for a new pair; returns the user, or nil when the refresh token is unknown or expired.
    func rotateSession(refreshHash: String, newAccessHash: String, accessExpiresAt: Date,
                       newRefreshHash: String, refreshExpiresAt: Date, now: Date) async throws -> Int64?
    func revokeSession(id: Int64) async throws
    func revokeSessions(userId: Int64) async throws
    /// Ends every session of the user but one (the one that just changed the password).
    func revokeSessions(userId: Int64, except sessionId: Int64) async throws
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
