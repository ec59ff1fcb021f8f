import Foundation
import UNITIProtocol


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

/// A participant account as the store keeps it: a row of `users`, by the names of its keys.
public struct UserAccount: Sendable, Hashable, Codable, StoreRecord {
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

    enum CodingKeys: CodingKey, CaseIterable {
        case id, username, email, passwordHash, firstName, lastName, gender, language, activated, active, pseudonym, createdAt
    }
}

/// Purposes of the single-use tokens sent by mail.
public enum MailTokenPurpose: String, Sendable {
    case activation, passwordReset
}

/// Where accounts, the single-use tokens sent by mail and login sessions are kept. Part of every
/// ``ServerStore``.
///
/// Tokens are stored only as hashes (``SecretTokens/hash(_:)``); the store never sees a token itself.
///
/// The tables `users` (usernames and addresses unique and found regardless of case: `lower(…)`
/// indexes on both stores), `mail_tokens` and `sessions`. Tokens are kept as hashes only.
extension ServerStore {
    // MARK: Accounts

    /// Creates an account; throws ``StoreConflict/usernameTaken`` or ``StoreConflict/emailTaken``.
    func createUser(username: String, email: String, passwordHash: String, language: String,
                           pseudonym: String, now: Date) async throws -> Int64 {
        do {
            return try await database.transaction { db in
                if try await db.row("SELECT 1 AS taken FROM users WHERE lower(username) = lower(\(username))") != nil {
                    throw StoreConflict.usernameTaken
                }
                if try await db.row("SELECT 1 AS taken FROM users WHERE lower(email) = lower(\(email))") != nil {
                    throw StoreConflict.emailTaken
                }
                return try await db.row("""
                    INSERT INTO users (username, email, password_hash, language, pseudonym, created_at)
                    VALUES (\(username), \(email), \(passwordHash), \(language), \(pseudonym), \(now))
                    RETURNING id
                    """)?["id"] ?? 0
            }
        } catch let error where SQLFailure.isUniqueViolation(error) {
            // Two registrations racing on PostgreSQL: the unique indexes decide.
            throw "\(error)".contains("email") ? StoreConflict.emailTaken : StoreConflict.usernameTaken
        }
    }

    func user(id: Int64) async throws -> UserAccount? {
        try await database.row("\(Accounts.select) WHERE id = \(id)").map(Accounts.account)
    }

    /// By e-mail (case-insensitive) or username.
    func user(login: String) async throws -> UserAccount? {
        // An address before a username that happens to equal it.
        try await database.row("""
            \(Accounts.select) WHERE lower(email) = lower(\(login)) OR lower(username) = lower(\(login))
            ORDER BY (lower(email) = lower(\(login))) DESC, id LIMIT 1
            """).map(Accounts.account)
    }

    /// One page of all accounts in the order they were made, and how many there are in all.
    func users(offset: Int, limit: Int) async throws -> (users: [UserAccount], total: Int) {
        let page = try await database.rows("\(Accounts.select) ORDER BY id LIMIT \(limit) OFFSET \(offset)").map(Accounts.account)
        return (page, try await database.row("SELECT COUNT(*) AS total FROM users")?["total"] ?? 0)
    }

    func setActivated(userId: Int64) async throws {
        try await database.execute("UPDATE users SET activated = \(true) WHERE id = \(userId)")
    }

    func setActive(userId: Int64, active: Bool) async throws {
        try await database.execute("UPDATE users SET active = \(active) WHERE id = \(userId)")
    }

    /// Sets a new password hash and, in the same transaction, cancels the account's open reset
    /// codes: a code asked for before the change must not undo it.
    func setPasswordHash(userId: Int64, hash: String, now: Date) async throws {
        try await database.transaction { db in
            try await db.execute("UPDATE users SET password_hash = \(hash) WHERE id = \(userId)")
            try await Self.cancelOpenTokens(db, userId: userId, purpose: .passwordReset, now: now)
        }
    }

    func updateProfile(userId: Int64, update: ProfileUpdate) async throws {
        do {
            try await database.transaction { db in
                if let username = update.username {
                    if try await db.row("""
                        SELECT 1 AS taken FROM users WHERE lower(username) = lower(\(username)) AND id <> \(userId)
                        """) != nil {
                        throw StoreConflict.usernameTaken
                    }
                    try await db.execute("UPDATE users SET username = \(username) WHERE id = \(userId)")
                }
                // A field not given stays; an empty name clears it.
                var changes: [SQL] = []
                if let first = update.firstName { changes.append("first_name = \(first.isEmpty ? nil : first)") }
                if let last = update.lastName { changes.append("last_name = \(last.isEmpty ? nil : last)") }
                if let gender = update.gender { changes.append("gender = \(gender.rawValue)") }
                if let language = update.language { changes.append("language = \(language)") }
                guard !changes.isEmpty else { return }
                try await db.execute("UPDATE users SET \(SQL.joined(changes, separator: ", ")) WHERE id = \(userId)")
            }
        } catch let error where SQLFailure.isUniqueViolation(error) {
            throw StoreConflict.usernameTaken
        }
    }

    // MARK: Mail tokens

    /// Keeps a new mailed code and, in the same transaction, cancels the account's other open codes
    /// of the purpose: only the newest code works (whoever saw an older mail cannot use it).
    func storeMailToken(userId: Int64, purpose: MailTokenPurpose, tokenHash: String, expiresAt: Date, now: Date) async throws {
        try await database.transaction { db in
            try await Self.cancelOpenTokens(db, userId: userId, purpose: purpose, now: now)
            try await db.execute("""
                INSERT INTO mail_tokens (token_hash, user_id, purpose, expires_at)
                VALUES (\(tokenHash), \(userId), \(purpose.rawValue), \(expiresAt))
                """)
        }
    }

    /// Uses up a token: returns its user once, if the token is known, unused, not cancelled and not
    /// expired, and in the same transaction cancels the account's other open codes of the purpose.
    /// One statement marks it used: of two processes using the same code at once, one gets the user.
    func consumeMailToken(purpose: MailTokenPurpose, tokenHash: String, now: Date) async throws -> Int64? {
        try await database.transaction { db in
            guard let userId: Int64 = try await db.row("""
                UPDATE mail_tokens SET used_at = \(now)
                WHERE token_hash = \(tokenHash) AND purpose = \(purpose.rawValue) AND used_at IS NULL AND cancelled_at IS NULL
                  AND expires_at > \(now)
                RETURNING user_id
                """)?["user_id"] else { return nil }
            try await Self.cancelOpenTokens(db, userId: userId, purpose: purpose, now: now)
            return userId
        }
    }

    /// Cancels the account's open codes of `purpose` (in the caller's transaction).
    private static func cancelOpenTokens(_ db: any SQLExecutor, userId: Int64, purpose: MailTokenPurpose, now: Date) async throws {
        try await db.execute("""
            UPDATE mail_tokens SET cancelled_at = \(now)
            WHERE user_id = \(userId) AND purpose = \(purpose.rawValue) AND used_at IS NULL AND cancelled_at IS NULL
            """)
    }

    // MARK: Sessions

    func createSession(userId: Int64, accessHash: String, accessExpiresAt: Date, refreshHash: String,
                              refreshExpiresAt: Date, now: Date) async throws {
        try await database.execute("""
            INSERT INTO sessions (user_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at, created_at)
            VALUES (\(userId), \(accessHash), \(accessExpiresAt), \(refreshHash), \(refreshExpiresAt), \(now))
            """)
    }

    /// Portal logins not ended and not expired, for the metrics. A portal session's row is the
    /// one whose refresh token expired as it was made (``PortalSessions/start(userId:)``).
    func activePortalSessions(now: Date) async throws -> Int64 {
        try await database.row("""
            SELECT COUNT(*) AS sessions FROM sessions
            WHERE revoked_at IS NULL AND access_expires_at > \(now) AND refresh_expires_at <= created_at
            """)?["sessions"] ?? 0
    }

    /// The session's id and its account for a live access token (one lookup: every request needs it).
    func session(accessHash: String, now: Date) async throws -> (sessionId: Int64, account: UserAccount)? {
        guard let row = try await database.frequentRows(SessionRead.self, """
            SELECT s.id AS session_id, \(Accounts.sessionColumns) FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.access_hash = \(accessHash) AND s.revoked_at IS NULL AND s.access_expires_at > \(now)
            """).first else { return nil }
        return (sessionId: try row["session_id"], account: try Accounts.account(row))
    }

    /// Every authenticated request's read.
    private enum SessionRead: FrequentRead {}

    /// Swaps a live refresh token for a new pair; returns the user, or nil when the refresh token is unknown or expired.
    /// Swaps a refresh token for a new pair (``SessionRotation``). The session's current refresh
    /// token is swapped, and so is its immediately previous one up to `reuseGrace` seconds after
    /// it was first swapped (the answer to that swap was lost: the app never got the new pair);
    /// the previous one presented later ends the session. Every other token is refused.
    ///
    /// Each step is one statement, atomic on its row: of two processes swapping the same current
    /// token at once, one rotates it and the other finds it as the previous one.
    func rotateSession(refreshHash: String, newAccessHash: String, accessExpiresAt: Date,
                       newRefreshHash: String, refreshExpiresAt: Date, now: Date,
                       reuseGrace: TimeInterval) async throws -> SessionRotation {
        let pair: SQL = """
            access_hash = \(newAccessHash), access_expires_at = \(accessExpiresAt),
            refresh_hash = \(newRefreshHash), refresh_expires_at = \(refreshExpiresAt)
            """
        return try await database.transaction { db in
            if let current = try await db.row("""
                UPDATE sessions SET previous_refresh_hash = refresh_hash, rotated_at = \(now), \(pair)
                WHERE refresh_hash = \(refreshHash) AND revoked_at IS NULL AND refresh_expires_at > \(now)
                RETURNING user_id
                """) {
                return .rotated(userId: try current["user_id"])
            }
            // The previous token and its grace stay as they are: the grace runs from its first use.
            if let previous = try await db.row("""
                UPDATE sessions SET \(pair)
                WHERE previous_refresh_hash = \(refreshHash) AND revoked_at IS NULL AND refresh_expires_at > \(now)
                  AND rotated_at > \(now.addingTimeInterval(-reuseGrace))
                RETURNING user_id
                """) {
                return .rotated(userId: try previous["user_id"])
            }
            if let reused = try await db.row("""
                UPDATE sessions SET revoked_at = \(now)
                WHERE previous_refresh_hash = \(refreshHash) AND revoked_at IS NULL AND refresh_expires_at > \(now)
                RETURNING user_id
                """) {
                return .revokedAfterReuse(userId: try reused["user_id"])
            }
            return .refused
        }
    }

    /// Moves a live session's expiry on to `until`, but never past `maximumAge` after the session
    /// began, and only when that moves it by more than `minimumStep` (so a page read now and then
    /// writes nothing); returns the new expiry when it moved. The portal's sliding session.
    func renewSession(id: Int64, until: Date, maximumAge: TimeInterval, minimumStep: TimeInterval,
                      now: Date) async throws -> Date? {
        let end: SQL = "\(sqlite: "MIN", postgres: "LEAST")(\(until), created_at + \(maximumAge))"
        return try await database.rowsWritten("""
            UPDATE sessions SET access_expires_at = \(end)
            WHERE id = \(id) AND revoked_at IS NULL AND access_expires_at > \(now) AND \(end) > access_expires_at + \(minimumStep)
            RETURNING access_expires_at
            """).first?["access_expires_at"]
    }

    func revokeSession(id: Int64, now: Date) async throws {
        try await database.execute("UPDATE sessions SET revoked_at = \(now) WHERE id = \(id)")
    }

    func revokeSessions(userId: Int64, now: Date) async throws {
        try await database.execute("UPDATE sessions SET revoked_at = \(now) WHERE user_id = \(userId) AND revoked_at IS NULL")
    }

    /// Ends every session of the user but one (the one that just changed the password).
    func revokeSessions(userId: Int64, except sessionId: Int64, now: Date) async throws {
        try await database.execute("""
            UPDATE sessions SET revoked_at = \(now) WHERE user_id = \(userId) AND id <> \(sessionId) AND revoked_at IS NULL
            """)
    }
}

/// Reading `users` rows.
enum Accounts {
    static let select: SQL = "SELECT \(UserAccount.columns()) FROM users"
    /// The account's columns in ``ServerStore/session(accessHash:now:)``, which every request reads.
    static let sessionColumns = UserAccount.columns(of: "u")

    static func account(_ row: SQLRow) throws -> UserAccount {
        try row.decode(UserAccount.self)
    }
}
