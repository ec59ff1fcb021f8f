import Foundation
import UNITIProtocol

/// The account operations of the study server, for the host's commands (and a standalone
/// program's): register, activate, log in and out, passwords, profile, deactivation.
///
/// Local checks come first (a malformed e-mail, a short password or two differing passwords
/// never travel to the server); the server's own checks (a taken username) come back as its
/// one-line message. Only the session tokens are stored, never a password.
///
/// One data directory holds one person's data: the first account that logs in owns it, and
/// another account is refused there, so that answers recorded offline can never be uploaded
/// into someone else's account.
public struct AccountService {
    let services: CoreServices
    let sessions: SessionStore
    let transport: any HTTPTransport

    static let ownerKey = "account.owner"
    /// The owner's pseudonym: a username may change (`profile edit --username`, the portal),
    /// the pseudonym names the same account on the next login. (Not the e-mail address: none is
    /// kept in the data directory.)
    static let ownerPseudonymKey = "account.ownerPseudonym"
    /// The server's code for a login to a deactivated account (with the right password).
    static let deactivatedCode = "account_deactivated"
    public static let minimumPasswordLength = 8

    public init(services: CoreServices, sessions: SessionStore, transport: any HTTPTransport = CurlTransport()) {
        self.services = services
        self.sessions = sessions
        self.transport = transport
    }

    func client() throws -> APIClient { try sessions.client(transport: transport) }

    // MARK: - Local checks

    public static func checkEmail(_ email: String) throws {
        let pattern = #"^[^@\s]+@[^@\s]+\.[^@\s]+$"#
        guard email.range(of: pattern, options: .regularExpression) != nil else {
            throw UNITIError(L("core.account.badEmail", ["email": email]))
        }
    }

    public static func checkPassword(_ password: String, repeated: String) throws {
        guard password.count >= minimumPasswordLength else {
            throw UNITIError(L("core.account.shortPassword", ["min": "\(minimumPasswordLength)"]))
        }
        guard password == repeated else { throw UNITIError(L("core.account.passwordsDiffer")) }
    }

    public static func checkUsername(_ username: String) throws {
        guard username.range(of: #"^[A-Za-z0-9._-]{3,32}$"#, options: .regularExpression) != nil else {
            throw UNITIError(L("core.account.badUsername"))
        }
    }

    // MARK: - Operations

    public func register(username: String, email: String, password: String) throws {
        try Self.checkUsername(username)
        try Self.checkEmail(email)
        let _: StatusMessage = try call { try client().send("POST", "account/register", body: RegisterRequest(
            username: username, email: email, password: password, language: CurrentLanguage.value.rawValue)) }
    }

    public func activate(token: String) throws {
        let _: StatusMessage = try call { try client().send("POST", "account/activate", body: TokenRequest(token: token)) }
    }

    /// Logs in and keeps the session; refuses an account other than the data directory's owner.
    ///
    /// Data recorded before any account logged in here (guest use) waits in the outbox. It goes
    /// to this account only when `attachGuestData` (asked with the number of queued entries and
    /// the username) says yes; otherwise the login is undone and the guest data stays as it is,
    /// so it can never end up in an account by accident. Without the closure nothing is attached.
    ///
    /// A deactivated account (the server says so only once the password is right) is
    /// reactivated with the same password when `reactivate` says yes, and the login goes on;
    /// otherwise it stays deactivated and nobody is logged in.
    @discardableResult
    public func login(_ login: String, password: String,
                      reactivate: () throws -> Bool = { false },
                      attachGuestData: (_ entries: Int, _ username: String) throws -> Bool = { _, _ in false }) throws -> Session {
        let askedAt = services.clock.now
        let tokens: SessionTokens = try call {
            let server = try client().withToken(nil)
            do {
                return try server.send("POST", "account/login", body: LoginRequest(login: login, password: password))
            } catch APIError.rejected(403, Self.deactivatedCode, _) {
                guard try reactivate() else { throw UNITIError(L("core.account.stillDeactivated")) }
                return try server.send("POST", "account/reactivate", body: ReactivateRequest(login: login, password: password))
            }
        }
        let profile: Profile = try call { try client().withToken(tokens.accessToken).send("GET", "account/profile") }
        var owner = try services.settings.string(Self.ownerKey)
        if owner != nil, owner != profile.username, let pseudonym = profile.pseudonym,
           try services.settings.string(Self.ownerPseudonymKey) == pseudonym {
            owner = profile.username  // the same account, renamed on another device or in the portal
        }
        if let owner, owner != profile.username {
            // Revoke the session just opened; this data directory is someone else's.
            try? client().withToken(tokens.accessToken).call("POST", "account/logout")
            throw UNITIError(L("core.account.otherOwner", ["owner": owner, "path": services.dataDirectory.path]))
        }
        if owner == nil {
            let guestEntries = try GuestData(database: services.database).queuedEntries()
            let attach: Bool
            do {
                attach = try guestEntries == 0 || attachGuestData(guestEntries, profile.username)
            } catch {
                try? client().withToken(tokens.accessToken).call("POST", "account/logout")
                throw error
            }
            guard attach else {
                try? client().withToken(tokens.accessToken).call("POST", "account/logout")
                throw UNITIError(L("core.account.guestKept", count: guestEntries, ["path": services.dataDirectory.path]))
            }
        }
        let session = Session(username: profile.username, tokens: tokens, obtainedAt: askedAt)
        try services.settings.set(Self.ownerKey, to: profile.username)
        if let pseudonym = profile.pseudonym { try services.settings.set(Self.ownerPseudonymKey, to: pseudonym) }
        try sessions.save(session)
        return session
    }

    /// Ends the session on the server (when reachable) and forgets it here. Local data and
    /// queued uploads stay; they are sent after the same person logs in again.
    public func logout() throws {
        if try sessions.current() != nil {
            try? client().call("POST", "account/logout")
        }
        try sessions.clear()
    }

    public func requestPasswordReset(email: String) throws {
        try Self.checkEmail(email)
        let _: StatusMessage = try call { try client().withToken(nil).send("POST", "account/password-reset", body: PasswordResetRequest(email: email)) }
    }

    public func confirmPasswordReset(token: String, newPassword: String) throws {
        let _: StatusMessage = try call { try client().withToken(nil).send("POST", "account/password-reset/confirm",
                                                                        body: PasswordResetConfirmation(token: token, newPassword: newPassword)) }
    }

    public func changePassword(current: String, new: String) throws {
        try requireSession()
        let _: StatusMessage = try call { try client().send("POST", "account/password",
                                                            body: PasswordChangeRequest(currentPassword: current, newPassword: new)) }
    }

    public func profile() throws -> Profile {
        try requireSession()
        return try call { try client().send("GET", "account/profile") }
    }

    /// Changes the profile on the server; a new username also becomes this data directory's
    /// owner and the session's name, so the next login by it (not by the old one) is this person's.
    public func updateProfile(_ update: ProfileUpdate) throws -> Profile {
        try requireSession()
        let profile: Profile = try call { try client().send("PATCH", "account/profile", body: update) }
        if update.username != nil {
            try services.settings.set(Self.ownerKey, to: profile.username)
            if var session = try sessions.current() {
                session.username = profile.username
                try sessions.save(session)
            }
        }
        return profile
    }

    public func deactivate() throws {
        try requireSession()
        let _: StatusMessage = try call { try client().send("POST", "account/deactivate") }
        try sessions.clear()
    }

    /// Deletes the account and everything the server keeps about the person, once the server
    /// confirmed the password; then forgets the session here. The data directory stays: the
    /// caller asks separately whether to delete it (``DataDirectory/erase()``).
    public func deleteAccount(password: String) throws {
        try requireSession()
        let _: StatusMessage = try call { try client().send("POST", "account/delete", body: AccountDeletionRequest(password: password)) }
        try sessions.clear()
    }

    /// Everything the server keeps about the person, as the server's JSON document (the portal's
    /// data download).
    public func personalData() throws -> Data {
        try requireSession()
        return try call { try client().raw("GET", "account/data").data }
    }

    @discardableResult
    public func requireSession() throws -> Session {
        guard let session = try sessions.current() else { throw UNITIError(L("core.account.notLoggedIn")) }
        return session
    }

    /// Turns API errors into one line for the person (see `SessionStore.userFacingError`).
    func call<T>(_ body: () throws -> T) throws -> T {
        try sessions.performing(body)
    }
}
