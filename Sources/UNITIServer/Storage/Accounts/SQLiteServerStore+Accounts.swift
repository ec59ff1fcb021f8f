import Foundation
import GRDB
import UNITIProtocol

/// The tables behind ``AccountStore`` (steps of ``ServerMigrations``; never edit a shipped step).
enum AccountSchema {
    /// `v1-accounts`.
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                username TEXT NOT NULL UNIQUE COLLATE NOCASE,
                email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                password_hash TEXT NOT NULL,
                first_name TEXT,
                last_name TEXT,
                gender TEXT NOT NULL DEFAULT 'undisclosed',
                language TEXT NOT NULL DEFAULT 'en',
                activated INTEGER NOT NULL DEFAULT 0,
                active INTEGER NOT NULL DEFAULT 1,
                pseudonym TEXT NOT NULL UNIQUE,
                created_at REAL NOT NULL
            );
            CREATE TABLE mail_tokens (
                token_hash TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                purpose TEXT NOT NULL,
                expires_at REAL NOT NULL,
                used_at REAL
            );
            CREATE TABLE sessions (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                access_hash TEXT NOT NULL UNIQUE,
                access_expires_at REAL NOT NULL,
                refresh_hash TEXT NOT NULL UNIQUE,
                refresh_expires_at REAL NOT NULL,
                created_at REAL NOT NULL,
                revoked_at REAL
            );
            CREATE INDEX sessions_user ON sessions(user_id);
            """)
    }

    /// `v11-mail-tokens-cancelled`: when a mailed code was cancelled unused, by a newer code of its
    /// purpose, by the use of another, or (a reset code) by a new password.
    static func v11(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE mail_tokens ADD COLUMN cancelled_at REAL")
    }

    /// Cancels the account's open codes of `purpose` (but `keeping`).
    static func cancelOpenTokens(_ db: Database, userId: Int64, purpose: MailTokenPurpose, keeping kept: String? = nil, now: Date) throws {
        try db.execute(sql: """
            UPDATE mail_tokens SET cancelled_at = ?
            WHERE user_id = ? AND purpose = ? AND used_at IS NULL AND cancelled_at IS NULL AND token_hash IS NOT ?
            """, arguments: [now.timeIntervalSince1970, userId, purpose.rawValue, kept])
    }
}

/// A row of `users`, read by column name.
struct AccountRow: FetchableRecord {
    var account: UserAccount

    init(row: Row) throws {
        account = UserAccount(
            id: row["id"], username: row["username"], email: row["email"], passwordHash: row["password_hash"],
            firstName: row["first_name"], lastName: row["last_name"],
            gender: Gender(rawValue: row["gender"]) ?? .undisclosed, language: row["language"],
            activated: row["activated"], active: row["active"], pseudonym: row["pseudonym"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }
}

extension SQLiteServerStore: AccountStore {
    // MARK: Accounts

    public func createUser(username: String, email: String, passwordHash: String, language: String,
                           pseudonym: String, now: Date) async throws -> Int64 {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE username = ?", arguments: [username]) != nil {
                throw StoreConflict.usernameTaken
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE email = ?", arguments: [email]) != nil {
                throw StoreConflict.emailTaken
            }
            try db.execute(sql: """
                INSERT INTO users (username, email, password_hash, language, pseudonym, created_at)
                VALUES (:username, :email, :passwordHash, :language, :pseudonym, :createdAt)
                """, arguments: ["username": username, "email": email, "passwordHash": passwordHash, "language": language,
                                 "pseudonym": pseudonym, "createdAt": now.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
    }

    public func user(id: Int64) async throws -> UserAccount? {
        try await pool.read { db in
            try AccountRow.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id])?.account
        }
    }

    public func user(login: String) async throws -> UserAccount? {
        try await pool.read { db in
            try AccountRow.fetchOne(db, sql: "SELECT * FROM users WHERE email = ? OR username = ? LIMIT 1",
                                    arguments: [login, login])?.account
        }
    }

    public func users(offset: Int, limit: Int) async throws -> (users: [UserAccount], total: Int) {
        try await pool.read { db in
            let users = try AccountRow.fetchAll(db, sql: "SELECT * FROM users ORDER BY id LIMIT ? OFFSET ?",
                                                arguments: [limit, offset]).map(\.account)
            return (users, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") ?? 0)
        }
    }

    public func setActivated(userId: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET activated = 1 WHERE id = ?", arguments: [userId])
        }
    }

    public func setActive(userId: Int64, active: Bool) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET active = ? WHERE id = ?", arguments: [active, userId])
        }
    }

    public func setPasswordHash(userId: Int64, hash: String, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [hash, userId])
            try AccountSchema.cancelOpenTokens(db, userId: userId, purpose: .passwordReset, now: now)
        }
    }

    public func updateProfile(userId: Int64, update: ProfileUpdate) async throws {
        try await pool.write { db in
            if let username = update.username {
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE username = ? AND id != ?",
                                     arguments: [username, userId]) != nil {
                    throw StoreConflict.usernameTaken
                }
                try db.execute(sql: "UPDATE users SET username = ? WHERE id = ?", arguments: [username, userId])
            }
            if let first = update.firstName {
                try db.execute(sql: "UPDATE users SET first_name = ? WHERE id = ?", arguments: [first.isEmpty ? nil : first, userId])
            }
            if let last = update.lastName {
                try db.execute(sql: "UPDATE users SET last_name = ? WHERE id = ?", arguments: [last.isEmpty ? nil : last, userId])
            }
            if let gender = update.gender {
                try db.execute(sql: "UPDATE users SET gender = ? WHERE id = ?", arguments: [gender.rawValue, userId])
            }
            if let language = update.language {
                try db.execute(sql: "UPDATE users SET language = ? WHERE id = ?", arguments: [language, userId])
            }
        }
    }

    // MARK: Mail tokens

    public func storeMailToken(userId: Int64, purpose: MailTokenPurpose, tokenHash: String, expiresAt: Date, now: Date) async throws {
        try await pool.write { db in
            try AccountSchema.cancelOpenTokens(db, userId: userId, purpose: purpose, now: now)
            try db.execute(sql: """
                INSERT INTO mail_tokens (token_hash, user_id, purpose, expires_at) VALUES (:tokenHash, :userId, :purpose, :expiresAt)
                """, arguments: ["tokenHash": tokenHash, "userId": userId, "purpose": purpose.rawValue,
                                 "expiresAt": expiresAt.timeIntervalSince1970])
        }
    }

    public func consumeMailToken(purpose: MailTokenPurpose, tokenHash: String, now: Date) async throws -> Int64? {
        try await pool.write { db in
            guard let userId = try Int64.fetchOne(db, sql: """
                SELECT user_id FROM mail_tokens
                WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND cancelled_at IS NULL AND expires_at > ?
                """, arguments: [tokenHash, purpose.rawValue, now.timeIntervalSince1970]) else { return nil }
            try db.execute(sql: "UPDATE mail_tokens SET used_at = ? WHERE token_hash = ?",
                           arguments: [now.timeIntervalSince1970, tokenHash])
            try AccountSchema.cancelOpenTokens(db, userId: userId, purpose: purpose, keeping: tokenHash, now: now)
            return userId
        }
    }

    // MARK: Sessions

    public func createSession(userId: Int64, accessHash: String, accessExpiresAt: Date, refreshHash: String,
                              refreshExpiresAt: Date, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO sessions (user_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at, created_at)
                VALUES (:userId, :accessHash, :accessExpiresAt, :refreshHash, :refreshExpiresAt, :createdAt)
                """, arguments: ["userId": userId, "accessHash": accessHash, "accessExpiresAt": accessExpiresAt.timeIntervalSince1970,
                                 "refreshHash": refreshHash, "refreshExpiresAt": refreshExpiresAt.timeIntervalSince1970,
                                 "createdAt": now.timeIntervalSince1970])
        }
    }

    public func session(accessHash: String, now: Date) async throws -> (sessionId: Int64, account: UserAccount)? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT s.id AS session_id, u.* FROM sessions s JOIN users u ON u.id = s.user_id
                WHERE s.access_hash = ? AND s.revoked_at IS NULL AND s.access_expires_at > ?
                """, arguments: [accessHash, now.timeIntervalSince1970]) else { return nil }
            return (sessionId: row["session_id"], account: try AccountRow(row: row).account)
        }
    }

    public func rotateSession(refreshHash: String, newAccessHash: String, accessExpiresAt: Date,
                              newRefreshHash: String, refreshExpiresAt: Date, now: Date) async throws -> Int64? {
        try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT id, user_id FROM sessions
                WHERE refresh_hash = ? AND revoked_at IS NULL AND refresh_expires_at > ?
                """, arguments: [refreshHash, now.timeIntervalSince1970]) else { return nil }
            let sessionId: Int64 = row["id"]
            try db.execute(sql: """
                UPDATE sessions SET access_hash = :accessHash, access_expires_at = :accessExpiresAt,
                    refresh_hash = :refreshHash, refresh_expires_at = :refreshExpiresAt
                WHERE id = :id
                """, arguments: ["accessHash": newAccessHash, "accessExpiresAt": accessExpiresAt.timeIntervalSince1970,
                                 "refreshHash": newRefreshHash, "refreshExpiresAt": refreshExpiresAt.timeIntervalSince1970,
                                 "id": sessionId])
            return row["user_id"]
        }
    }

    public func revokeSession(id: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE sessions SET revoked_at = ? WHERE id = ?",
                           arguments: [Date().timeIntervalSince1970, id])
        }
    }

    public func revokeSessions(userId: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
                           arguments: [Date().timeIntervalSince1970, userId])
        }
    }

    public func revokeSessions(userId: Int64, except sessionId: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id <> ? AND revoked_at IS NULL",
                           arguments: [Date().timeIntervalSince1970, userId, sessionId])
        }
    }
}
