import Foundation
import Logging
import PostgresNIO
import UNITIProtocol

/// ``AccountStore`` on PostgreSQL: the twin of `SQLiteServerStore+Accounts.swift`. Usernames and
/// e-mail addresses are unique and found regardless of case (`lower(…)` indexes, as SQLite's
/// `COLLATE NOCASE`).
extension PostgreSQLServerStore: AccountStore {
    static func account(_ row: PostgresRandomAccessRow) throws -> UserAccount {
        UserAccount(
            id: try row.value("id"), username: try row.value("username"), email: try row.value("email"),
            passwordHash: try row.value("password_hash"), firstName: try row.value("first_name"), lastName: try row.value("last_name"),
            gender: Gender(rawValue: try row.value("gender")) ?? .undisclosed, language: try row.value("language"),
            activated: try row.value("activated"), active: try row.value("active"), pseudonym: try row.value("pseudonym"),
            createdAt: Date(timeIntervalSince1970: try row.value("created_at")))
    }

    static let accountColumns = "id, username, email, password_hash, first_name, last_name, gender, language, activated, active, pseudonym, created_at"

    // MARK: Accounts

    public func createUser(username: String, email: String, passwordHash: String, language: String,
                           pseudonym: String, now: Date) async throws -> Int64 {
        // The same order of checks as SQLite's, so both name the same conflict; the unique
        // indexes still decide when two registrations race.
        if try await !rows("SELECT 1 AS taken FROM users WHERE lower(username) = lower(\(username))").isEmpty {
            throw StoreConflict.usernameTaken
        }
        if try await !rows("SELECT 1 AS taken FROM users WHERE lower(email) = lower(\(email))").isEmpty {
            throw StoreConflict.emailTaken
        }
        do {
            let rows = try await self.rows("""
                INSERT INTO users (username, email, password_hash, language, pseudonym, created_at)
                VALUES (\(username), \(email), \(passwordHash), \(language), \(pseudonym), \(now.timeIntervalSince1970))
                RETURNING id
                """)
            return try rows[0].value("id")
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            let constraint = error.serverInfo?[.constraintName] ?? ""
            throw constraint.contains("email") ? StoreConflict.emailTaken : StoreConflict.usernameTaken
        }
    }

    public func user(id: Int64) async throws -> UserAccount? {
        try await rows("SELECT \(unescaped: Self.accountColumns) FROM users WHERE id = \(id)").first.map(Self.account)
    }

    public func user(login: String) async throws -> UserAccount? {
        // The e-mail first, as SQLite's `email = ? OR username = ?` finds it.
        try await rows("""
            SELECT \(unescaped: Self.accountColumns) FROM users WHERE lower(email) = lower(\(login)) OR lower(username) = lower(\(login))
            ORDER BY (lower(email) = lower(\(login))) DESC, id LIMIT 1
            """).first.map(Self.account)
    }

    public func users(offset: Int, limit: Int) async throws -> (users: [UserAccount], total: Int) {
        let total: Int64 = try await rows("SELECT COUNT(*) AS total FROM users")[0].value("total")
        let page = try await rows("""
            SELECT \(unescaped: Self.accountColumns) FROM users ORDER BY id LIMIT \(Int64(limit)) OFFSET \(Int64(offset))
            """).map(Self.account)
        return (page, Int(total))
    }

    public func setActivated(userId: Int64) async throws {
        try await client.query("UPDATE users SET activated = true WHERE id = \(userId)", logger: logger)
    }

    public func setActive(userId: Int64, active: Bool) async throws {
        try await client.query("UPDATE users SET active = \(active) WHERE id = \(userId)", logger: logger)
    }

    public func setPasswordHash(userId: Int64, hash: String, now: Date) async throws {
        try await transaction { connection in
            try await connection.query("UPDATE users SET password_hash = \(hash) WHERE id = \(userId)", logger: logger)
            try await Self.cancelOpenTokens(userId: userId, purpose: .passwordReset, now: now, on: connection, logger: logger)
        }
    }

    public func updateProfile(userId: Int64, update: ProfileUpdate) async throws {
        if let username = update.username,
           try await !rows("SELECT 1 AS taken FROM users WHERE lower(username) = lower(\(username)) AND id <> \(userId)").isEmpty {
            throw StoreConflict.usernameTaken
        }
        do {
            try await transaction { connection in
                if let username = update.username {
                    try await connection.query("UPDATE users SET username = \(username) WHERE id = \(userId)", logger: logger)
                }
                if let first = update.firstName {
                    try await connection.query("UPDATE users SET first_name = \(first.isEmpty ? nil : first) WHERE id = \(userId)", logger: logger)
                }
                if let last = update.lastName {
                    try await connection.query("UPDATE users SET last_name = \(last.isEmpty ? nil : last) WHERE id = \(userId)", logger: logger)
                }
                if let gender = update.gender {
                    try await connection.query("UPDATE users SET gender = \(gender.rawValue) WHERE id = \(userId)", logger: logger)
                }
                if let language = update.language {
                    try await connection.query("UPDATE users SET language = \(language) WHERE id = \(userId)", logger: logger)
                }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw StoreConflict.usernameTaken
        }
    }

    // MARK: Mail tokens

    public func storeMailToken(userId: Int64, purpose: MailTokenPurpose, tokenHash: String, expiresAt: Date, now: Date) async throws {
        try await transaction { connection in
            try await Self.cancelOpenTokens(userId: userId, purpose: purpose, now: now, on: connection, logger: logger)
            try await connection.query("""
                INSERT INTO mail_tokens (token_hash, user_id, purpose, expires_at)
                VALUES (\(tokenHash), \(userId), \(purpose.rawValue), \(expiresAt.timeIntervalSince1970))
                """, logger: logger)
        }
    }

    public func consumeMailToken(purpose: MailTokenPurpose, tokenHash: String, now: Date) async throws -> Int64? {
        // One statement: of two processes using the same code at once, exactly one gets the user,
        // and the account's other open codes of the purpose are cancelled with it.
        try await rows("""
            WITH used AS (
                UPDATE mail_tokens SET used_at = \(now.timeIntervalSince1970)
                WHERE token_hash = \(tokenHash) AND purpose = \(purpose.rawValue) AND used_at IS NULL AND cancelled_at IS NULL
                  AND expires_at > \(now.timeIntervalSince1970)
                RETURNING user_id
            ), cancelled AS (
                UPDATE mail_tokens SET cancelled_at = \(now.timeIntervalSince1970)
                WHERE user_id IN (SELECT user_id FROM used) AND purpose = \(purpose.rawValue) AND token_hash <> \(tokenHash)
                  AND used_at IS NULL AND cancelled_at IS NULL
            )
            SELECT user_id FROM used
            """).first.map { try $0.value("user_id") }
    }

    /// Cancels the account's open codes of `purpose` (in the caller's transaction).
    static func cancelOpenTokens(userId: Int64, purpose: MailTokenPurpose, now: Date, on connection: PostgresConnection,
                                 logger: Logger) async throws {
        try await connection.query("""
            UPDATE mail_tokens SET cancelled_at = \(now.timeIntervalSince1970)
            WHERE user_id = \(userId) AND purpose = \(purpose.rawValue) AND used_at IS NULL AND cancelled_at IS NULL
            """, logger: logger)
    }

    // MARK: Sessions

    public func createSession(userId: Int64, accessHash: String, accessExpiresAt: Date, refreshHash: String,
                              refreshExpiresAt: Date, now: Date) async throws {
        try await client.query("""
            INSERT INTO sessions (user_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at, created_at)
            VALUES (\(userId), \(accessHash), \(accessExpiresAt.timeIntervalSince1970), \(refreshHash),
                    \(refreshExpiresAt.timeIntervalSince1970), \(now.timeIntervalSince1970))
            """, logger: logger)
    }

    public func session(accessHash: String, now: Date) async throws -> (sessionId: Int64, account: UserAccount)? {
        guard let row = try await rows("""
            SELECT s.id AS session_id, u.id, u.username, u.email, u.password_hash, u.first_name, u.last_name, u.gender,
                   u.language, u.activated, u.active, u.pseudonym, u.created_at
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.access_hash = \(accessHash) AND s.revoked_at IS NULL AND s.access_expires_at > \(now.timeIntervalSince1970)
            """).first else { return nil }
        return (sessionId: try row.value("session_id"), account: try Self.account(row))
    }

    public func rotateSession(refreshHash: String, newAccessHash: String, accessExpiresAt: Date,
                              newRefreshHash: String, refreshExpiresAt: Date, now: Date) async throws -> Int64? {
        // One statement: a refresh token used twice at once rotates once.
        try await rows("""
            UPDATE sessions SET access_hash = \(newAccessHash), access_expires_at = \(accessExpiresAt.timeIntervalSince1970),
                refresh_hash = \(newRefreshHash), refresh_expires_at = \(refreshExpiresAt.timeIntervalSince1970)
            WHERE refresh_hash = \(refreshHash) AND revoked_at IS NULL AND refresh_expires_at > \(now.timeIntervalSince1970)
            RETURNING user_id
            """).first.map { try $0.value("user_id") }
    }

    public func revokeSession(id: Int64) async throws {
        try await client.query("UPDATE sessions SET revoked_at = \(Date().timeIntervalSince1970) WHERE id = \(id)", logger: logger)
    }

    public func revokeSessions(userId: Int64) async throws {
        try await client.query("""
            UPDATE sessions SET revoked_at = \(Date().timeIntervalSince1970) WHERE user_id = \(userId) AND revoked_at IS NULL
            """, logger: logger)
    }

    public func revokeSessions(userId: Int64, except sessionId: Int64) async throws {
        try await client.query("""
            UPDATE sessions SET revoked_at = \(Date().timeIntervalSince1970)
            WHERE user_id = \(userId) AND id <> \(sessionId) AND revoked_at IS NULL
            """, logger: logger)
    }
}
