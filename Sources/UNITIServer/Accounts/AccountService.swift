import Foundation
import UNITIProtocol

/// The account steps both front doors share, the JSON API (``AccountRoutes``) and the
/// participant portal (``PortalRoutes``): one place for the rules (``AccountRules``), the mailed
/// codes, the login throttle and the sessions, so a browser and an app can never disagree about
/// what a valid registration or a throttled login is.
///
/// Topics: registration and activation; login (throttled, shared by both doors); password reset;
/// the signed-in person's profile, password change and deactivation.
struct AccountService: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// Validates and creates an account, then mails the activation code in the account's language.
    ///
    /// An address that has an account is answered exactly like a new one (issue 27: the answer
    /// must not tell who has an account, or the reset route's neutral answer is worth nothing):
    /// the password is hashed all the same, so the time matches (what differs is one insert that
    /// commits or not; the code and the mail are made by the mail queue after the answer, for a
    /// new account and a taken address alike), nothing is created, and the address's owner is
    /// mailed a note that someone tried. A taken username still says so (409 `username_taken`):
    /// a person must be able to pick another. Limited per address and per client address
    /// (``MailRequestThrottle``).
    func register(username rawUsername: String, email rawEmail: String, password: String, language: String,
                  client: ClientAddress?) async throws {
        let username = rawUsername.trimmingCharacters(in: .whitespaces)
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        try AccountRules.validateUsername(username)
        try AccountRules.validateEmail(email)
        try AccountRules.validatePassword(password)
        try AccountRules.validateLanguage(language)
        let now = environment.clock.now()
        try await throttled(.registration, email: email, client: client, now: now)
        let hash = await environment.passwords.hash(password)
        let userId: Int64
        do {
            userId = try await store.createUser(username: username, email: email, passwordHash: hash, language: language,
                                                pseudonym: SecretTokens.pseudonym(), now: now)
        } catch StoreConflict.emailTaken {
            environment.mail.enqueue { [self] in try await registrationAttemptNote(to: email) }
            return
        }
        environment.mail.enqueue { [self] in
            try await [activationMail(userId: userId, username: username, email: email, language: language)]
        }
    }

    /// The activation mail of a new account, with a new code (run by the mail queue).
    private func activationMail(userId: Int64, username: String, email: String, language: String) async throws -> OutgoingMail {
        let now = environment.clock.now()
        let token = SecretTokens.mailCode()
        try await store.storeMailToken(userId: userId, purpose: .activation, tokenHash: SecretTokens.hash(token),
                                       expiresAt: now.addingTimeInterval(environment.mailTokenLifetime), now: now)
        let mail = MailTemplates.activation(token: token, username: username, language: language, link: link("activate", token))
        return OutgoingMail(to: email, subject: mail.subject, body: mail.body)
    }

    /// The note to the owner of an address someone tried to register with (run by the mail queue).
    private func registrationAttemptNote(to email: String) async throws -> [OutgoingMail] {
        guard let account = try await store.user(login: email), account.email.lowercased() == email else { return [] }
        let mail = MailTemplates.registrationAttempt(username: account.username, language: account.language,
                                                     link: environment.publicURL.map { "\($0)/login" })
        return [OutgoingMail(to: account.email, subject: mail.subject, body: mail.body)]
    }

    /// Counts a registration or reset request; 429 `too_many_requests` while its address or its
    /// client must wait.
    private func throttled(_ request: MailRequestThrottle.Request, email: String, client: ClientAddress?, now: Date) async throws {
        if let wait = try await environment.mailRequests.start(request, email: email, client: client, store: store, now: now) {
            SecurityEvent.mailRequestThrottled.record()
            throw APIError(.tooManyRequests, "too_many_requests",
                           "Too many requests for this address or from this network; wait \(wait) seconds before trying again.",
                           headers: ["Retry-After": "\(wait)"])
        }
    }

    /// The portal page that takes a mailed code, with the code filled in, when the server knows
    /// its public address (`serve --public-url`); nil otherwise (the mail carries just the code).
    /// Opening it only shows the form; the change needs the form's POST.
    func link(_ page: String, _ code: String) -> String? {
        guard let base = environment.publicURL else { return nil }
        return "\(base)/\(page)?code=\(code)"
    }

    /// Spends an activation code and activates its account.
    func activate(code: String) async throws {
        guard let userId = try await store.consumeMailToken(purpose: .activation, tokenHash: SecretTokens.hash(code),
                                                            now: environment.clock.now()) else {
            throw APIError.invalid("invalid_token", "This activation code is unknown, used or expired; register again or ask for a new one.")
        }
        try await store.setActivated(userId: userId)
    }

    /// Checks a login and password with throttling (``LoginThrottle``: per account whichever name
    /// is typed, and per client address); returns the account when both are right.
    func verifiedAccount(login rawLogin: String, password: String, client: ClientAddress?) async throws -> UserAccount {
        let now = environment.clock.now()
        let login = rawLogin.trimmingCharacters(in: .whitespaces)
        let account = try await store.user(login: login)
        if let wait = try await environment.throttle.startAttempt(account: account, login: login, client: client, store: store, now: now) {
            SecurityEvent.loginThrottled.record()
            throw APIError(.tooManyRequests, "too_many_attempts",
                           "Too many failed logins; wait \(wait) seconds before trying again.", headers: ["Retry-After": "\(wait)"])
        }
        // Verify against a fixed hash when the account is unknown, so timing does not tell which logins exist.
        let hash = account?.passwordHash ?? environment.passwords.decoyHash
        let correct = await environment.passwords.verify(password, hash: hash)
        guard let account, correct else {
            // Counted as a failure when the attempt started.
            SecurityEvent.loginRefused.record()
            throw APIError(.unauthorized, "invalid_credentials", "The login or the password is wrong.")
        }
        try await environment.throttle.recordSuccess(account: account, client: client, store: store)
        return account
    }

    /// A login that may start a session: right credentials, well-formed, activated and active.
    func accountForLogin(login: String, password: String, client: ClientAddress?) async throws -> UserAccount {
        try Self.requireWellFormed(login: login, password: password)
        let account = try await verifiedAccount(login: login, password: password, client: client)
        try Self.requireActivated(account)
        guard account.active else {
            throw APIError(.forbidden, "account_deactivated", "This account is deactivated; reactivate it to log in.")
        }
        return account
    }

    /// Switches a deactivated account on again once its password is right (checked and
    /// throttled as a login is), for the API's `reactivate` and the portal's reactivation form.
    /// An account that is active already is simply returned.
    func reactivate(login: String, password: String, client: ClientAddress?) async throws -> UserAccount {
        try Self.requireWellFormed(login: login, password: password)
        var account = try await verifiedAccount(login: login, password: password, client: client)
        try Self.requireActivated(account)
        if !account.active {
            try await store.setActive(userId: account.id, active: true)
            account.active = true
        }
        return account
    }

    /// A login name and password of sizes a person types; anything else never reaches bcrypt.
    static func requireWellFormed(login: String, password: String) throws {
        guard !login.isEmpty, login.count <= 254, password.utf8.count <= 1024 else {
            throw APIError.invalid("invalid_credentials_format", "Give the e-mail address or username and the password.")
        }
    }

    static func requireActivated(_ account: UserAccount) throws {
        guard account.activated else {
            throw APIError(.forbidden, "not_activated", "Activate the account first with the code sent by mail.")
        }
    }

    /// Mails a reset code when an account has this address; says nothing either way, so the
    /// answer does not tell which addresses have accounts. The request does the same work for
    /// every address (validation, the request limit, queueing); the account is looked up and the
    /// code made by the mail queue after the answer, so its time does not tell either. At most
    /// three reset mails an hour go to one address (``MailRequestThrottle/resetMailRule``);
    /// further requests are answered alike and send nothing.
    func startPasswordReset(email rawEmail: String, client: ClientAddress?) async throws {
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        try AccountRules.validateEmail(email)
        try await throttled(.passwordReset, email: email, client: client, now: environment.clock.now())
        environment.mail.enqueue { [self] in try await resetMail(to: email) }
    }

    /// The reset mail for an address, if it has an account and may get another mail now (run by
    /// the mail queue). The new code cancels the account's older ones.
    private func resetMail(to email: String) async throws -> [OutgoingMail] {
        let now = environment.clock.now()
        guard let account = try await store.user(login: email), account.email.lowercased() == email,
              try await environment.mailRequests.mayMailReset(to: email, store: store, now: now) else { return [] }
        let token = SecretTokens.mailCode()
        try await store.storeMailToken(userId: account.id, purpose: .passwordReset, tokenHash: SecretTokens.hash(token),
                                       expiresAt: now.addingTimeInterval(environment.mailTokenLifetime), now: now)
        let mail = MailTemplates.passwordReset(token: token, username: account.username, language: account.language,
                                               link: link("password/reset", token))
        return [OutgoingMail(to: account.email, subject: mail.subject, body: mail.body)]
    }

    /// Spends a reset code (which cancels the account's other open codes), sets the new password
    /// and ends every session of the account (API tokens and portal sessions alike): whoever knew
    /// the old password is out.
    func confirmPasswordReset(code: String, newPassword: String) async throws {
        try AccountRules.validatePassword(newPassword)
        let now = environment.clock.now()
        guard let userId = try await store.consumeMailToken(purpose: .passwordReset, tokenHash: SecretTokens.hash(code), now: now) else {
            throw APIError.invalid("invalid_token", "This reset code is unknown, used or expired; ask for a new one.")
        }
        try await store.setPasswordHash(userId: userId, hash: await environment.passwords.hash(newPassword), now: now)
        try await store.revokeSessions(userId: userId, now: now)
    }

    // MARK: The signed-in person

    /// Changes what a person may change of their profile (username, names, gender, language; the
    /// e-mail address is the login's anchor and stays) and returns the account as stored.
    func updateProfile(userId: Int64, update rawUpdate: ProfileUpdate) async throws -> UserAccount {
        var update = rawUpdate
        update.username = update.username?.trimmingCharacters(in: .whitespaces)
        if let username = update.username { try AccountRules.validateUsername(username) }
        if let first = update.firstName { try AccountRules.validateName(first, field: "first_name") }
        if let last = update.lastName { try AccountRules.validateName(last, field: "last_name") }
        if let language = update.language { try AccountRules.validateLanguage(language) }
        try await store.updateProfile(userId: userId, update: update)
        guard let account = try await store.user(id: userId) else { throw APIError.unauthorized }
        return account
    }

    /// Sets a new password after checking the current one (which cancels every open reset code),
    /// then ends every other session of the account (other devices, other browsers): whoever knew
    /// the old password is out; the session that made the change (`keeping`) stays.
    func changePassword(account: UserAccount, current: String, new newPassword: String, keeping sessionId: Int64) async throws {
        guard current.utf8.count <= 1024, await environment.passwords.verify(current, hash: account.passwordHash) else {
            throw APIError(.forbidden, "wrong_password", "The current password is wrong.")
        }
        try AccountRules.validatePassword(newPassword)
        let now = environment.clock.now()
        try await store.setPasswordHash(userId: account.id, hash: await environment.passwords.hash(newPassword), now: now)
        try await store.revokeSessions(userId: account.id, except: sessionId, now: now)
    }

    /// Deletes the account and everything kept about the person
    /// (``ServerStore/deleteAccount(userId:now:recording:)``) once the password is confirmed: checked and
    /// throttled as a login, so a session left open on a shared computer cannot erase an account.
    func deleteAccount(_ account: UserAccount, password: String, client: ClientAddress?) async throws {
        try Self.requireWellFormed(login: account.username, password: password)
        let verified = try await verifiedAccount(login: account.username, password: password, client: client)
        guard verified.id == account.id else { throw APIError(.unauthorized, "invalid_credentials", "The password is wrong.") }
        // Each study the person was in keeps a line that they left it with the account, by
        // pseudonym only: the team sees why their answers are gone.
        _ = try await store.deleteAccount(userId: account.id, now: environment.clock.now()) { studies, pseudonym in
            studies.map { AuditRecord(actor: .participant(pseudonym), studyId: $0, action: "participant.deleteAccount", detail: [:]) }
        }
    }

    /// Deactivates the account and ends all its sessions; logging in again needs reactivation
    /// with the password (the API's `reactivate`).
    func deactivate(userId: Int64) async throws {
        try await store.setActive(userId: userId, active: false)
        try await store.revokeSessions(userId: userId, now: environment.clock.now())
    }
}
