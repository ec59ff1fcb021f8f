import Foundation
import UNITIProtocol

/// The staff steps the console (``ConsoleRoutes``) and `uniti-server staff` share: adding a
/// member with a mailed one-time enrolment link, enrolling (a password, a TOTP second factor and
/// recovery codes), signing in with both factors (throttled as participant logins are), and
/// changing the password. Passwords are hashed as participants' are (``PasswordHasher``). Each
/// change and its line in the audit trail are one transaction (``ServerStore/transaction(_:)``).
///
/// Topics: adding and enrolling; signing in; the password.
struct StaffService: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// How many recovery codes enrolment hands out (each usable once, instead of a TOTP code).
    static let recoveryCodeCount = 10
    /// The issuer authenticator apps show beside the account.
    static let issuer = "UNITI"

    // MARK: Adding and enrolling

    /// Creates a staff member and makes the one-time enrolment link; the line in the audit trail
    /// names who added them. Returns the mail with the link, for the caller to send (the console
    /// through the mail queue, `staff add` at once). Throws ``StoreConflict/emailTaken`` for an
    /// address that has one.
    /// `language`: the one their mails are in until they sign in (nil: every staff mail language).
    func add(name: String, email: String, admin: Bool, language: String? = nil, by actor: AuditActor) async throws -> (id: Int64, mail: OutgoingMail) {
        if let language, !PortalText.languages.contains(language) {
            throw APIError.invalid("unknown_language", "'\(language.prefix(16))' is not a language of this program; give one of \(PortalText.languages.joined(separator: ", ")).")
        }
        return try await store.transaction { store in
            try await add(name: name, email: email, admin: admin, language: language, by: actor, invitedTo: nil, in: store)
        }
    }

    /// ``add(name:email:admin:by:)`` in the caller's transaction (``StudyTeam``: an owner's
    /// invitation of an address new to the console); the line on the account-wide trail names
    /// the study of the invitation.
    func add(name rawName: String, email rawEmail: String, admin: Bool, language: String? = nil, by actor: AuditActor, invitedTo studyId: String?,
             in store: ServerStore) async throws -> (id: Int64, mail: OutgoingMail) {
        let name = rawName.trimmingCharacters(in: .whitespaces)
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty else { throw APIError.invalid("invalid_name", "Give the staff member's name.") }
        try AccountRules.validateName(name, field: "name")
        try AccountRules.validateEmail(email)
        let now = environment.clock.now()
        let id = try await store.createStaff(name: name, email: email, admin: admin, language: language, now: now)
        var detail: [String: JSONValue] = ["staff": .number(Double(id)), "email": .string(email), "admin": .bool(admin)]
        if let studyId { detail["invitation"] = .string(studyId) }
        try await store.appendAudit(actor, studyId: nil, action: "staff.add", detail: .object(detail), now: now)
        return (id, try await enrolmentMail(staffId: id, name: name, email: email, languages: language.map { [$0] } ?? PortalText.staffMailLanguages,
                                            in: store))
    }

    /// A new enrolment link for an existing member (`staff link`), with its line in the audit trail.
    func newEnrolmentLink(for member: StaffMember, by actor: AuditActor) async throws -> OutgoingMail {
        let now = environment.clock.now()
        return try await store.transaction { store in
            let mail = try await enrolmentMail(staffId: member.id, name: member.name, email: member.email, languages: member.mailLanguages, in: store)
            try await store.appendAudit(actor, studyId: nil, action: "staff.link", detail: .object(["staff": .number(Double(member.id))]), now: now)
            return mail
        }
    }

    /// A new enrolment link (older links stop working) in the mail that carries it: the console
    /// page with the code filled in when the server knows its public address, and the code alone.
    /// In the member's language when it is known (``StaffMember/mailLanguages``), else in each
    /// staff mail language, English first.
    private func enrolmentMail(staffId: Int64, name: String, email: String, languages: [String], in store: ServerStore) async throws -> OutgoingMail {
        let now = environment.clock.now()
        let code = SecretTokens.mailCode()
        try await store.storeStaffEnrolment(staffId: staffId, tokenHash: Self.enrolmentHash(code),
                                            expiresAt: now.addingTimeInterval(environment.mailTokenLifetime), now: now)
        let link = "\(environment.publicURL ?? "")/console/enrol?code=\(code)"
        let body = languages.map { PortalText.text("mail.staffEnrolment.body", $0, ["name": name, "code": code, "link": link]) }
            .joined(separator: "\n----\n\n")
        let subject = languages.map { PortalText.text("mail.staffEnrolment.subject", $0) }.joined(separator: " / ")
        return OutgoingMail(to: email, subject: subject, body: body)
    }

    static func enrolmentHash(_ code: String) -> String {
        SecretTokens.hash("staff-enrolment:" + code.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The member an open enrolment code belongs to, or a refusal the page can show.
    func enrolling(code: String) async throws -> StaffMember {
        guard (1...64).contains(code.count),
              let member = try await store.staffEnrolment(tokenHash: Self.enrolmentHash(code), now: environment.clock.now()) else {
            throw APIError.invalid("invalid_enrolment", "This enrolment link is unknown, used or expired; ask an administrator for a new one.")
        }
        return member
    }

    /// A new TOTP secret in base32, for the enrolment page to show (as text and as a QR code).
    func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base32.encode(TOTP.newSecret(using: &generator))
    }

    /// Completes enrolment: the code typed from the authenticator must match the secret shown
    /// (so the member has it), then the password, the secret and new recovery codes are kept and
    /// the link is spent. Returns the recovery codes, to be shown once (only their hashes stay).
    func enrol(code: String, password: String, secret: String, totpCode: String) async throws -> [String] {
        let member = try await enrolling(code: code)
        try AccountRules.validatePassword(password)
        guard let bytes = Base32.decode(secret), bytes.count >= 16 else {
            throw APIError.invalid("invalid_secret", "The secret of the page was changed; open the enrolment link again.")
        }
        let now = environment.clock.now()
        guard let step = TOTP(secret: bytes).matchingStep(totpCode, at: now) else {
            throw APIError.invalid("invalid_totp", "The code from the authenticator app is wrong; check the phone's clock and type the current code.")
        }
        let recoveryCodes = (0..<Self.recoveryCodeCount).map { _ in Self.newRecoveryCode() }
        let passwordHash = await environment.passwords.hash(password)
        let enrolled = try await store.transaction { store in
            guard try await store.completeStaffEnrolment(
                tokenHash: Self.enrolmentHash(code), passwordHash: passwordHash, totpSecret: Base32.encode(bytes), confirmedStep: step,
                recoveryCodeHashes: recoveryCodes.map(Self.recoveryHash), now: now) != nil else { return false }
            try await store.appendAudit(.staff(member.id), studyId: nil, action: "staff.enrol", detail: .object([:]), now: now)
            return true
        }
        guard enrolled else {
            throw APIError.invalid("invalid_enrolment", "This enrolment link is unknown, used or expired; ask an administrator for a new one.")
        }
        return recoveryCodes
    }

    /// `xxxxx-xxxxx` from the mailed codes' alphabet (50 bits: random, so a SHA-256 hash suffices).
    static func newRecoveryCode() -> String {
        let code = String(SecretTokens.mailCode().prefix(10))
        return String(code.prefix(5)) + "-" + String(code.suffix(5))
    }

    static func recoveryHash(_ code: String) -> String {
        SecretTokens.hash("staff-recovery:" + code.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    // MARK: Signing in

    /// The member when address, password and second factor (a TOTP code not used before, or an
    /// unused recovery code) are all right; one refusal for any wrong part, so the answer does
    /// not tell which. Throttled per member (or typed address) and per client address by the
    /// participants' login rules (``LoginThrottle``); a success clears the member's count.
    func signIn(email rawEmail: String, password: String, code: String, client: ClientAddress?) async throws -> StaffMember {
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        try AccountService.requireWellFormed(login: email, password: password)
        let now = environment.clock.now()
        let member = try await store.staffMember(email: email)
        let memberKey = member.map { "console-login:staff:\($0.id)" } ?? "console-login:name:\(email)"
        let clientKey = client.map { "login:client:\($0.throttleKey)" }
        var keys = [ThrottleKey(memberKey, environment.throttle.rule)]
        if let clientKey { keys.append(ThrottleKey(clientKey, environment.throttle.clientRule)) }
        if let wait = try await store.startThrottledAttempt(keys, now: now) {
            throw APIError(.tooManyRequests, "too_many_attempts",
                           "Too many failed sign-ins; wait \(wait) seconds before trying again.", headers: ["Retry-After": "\(wait)"])
        }
        let refusal = APIError(.unauthorized, "invalid_staff_credentials", "The address, the password or the code is wrong.")
        let correct = await environment.passwords.verify(password, hash: member?.passwordHash ?? environment.passwords.decoyHash)
        guard let member, correct, let secret = member.totpSecret.flatMap(Base32.decode) else { throw refusal }
        guard try await secondFactor(code, member: member, secret: secret, now: now) else { throw refusal }
        try await store.finishThrottledAttempt(clearing: [memberKey], takingBack: clientKey.map { [$0] } ?? [])
        return member
    }

    /// A six-digit TOTP code of a step not accepted before, else a recovery code not used before.
    private func secondFactor(_ code: String, member: StaffMember, secret: Data, now: Date) async throws -> Bool {
        let typed = code.trimmingCharacters(in: .whitespaces)
        if typed.count == 6, typed.allSatisfy(\.isNumber) {
            guard let step = TOTP(secret: secret).matchingStep(typed, at: now) else { return false }
            return try await store.acceptTOTPStep(staffId: member.id, step: step)
        }
        guard (10...20).contains(typed.count) else { return false }
        let hash = Self.recoveryHash(typed)
        return try await store.transaction { store in
            guard try await store.useRecoveryCode(staffId: member.id, codeHash: hash, now: now) else { return false }
            try await store.appendAudit(.staff(member.id), studyId: nil, action: "staff.recoveryCodeUsed",
                                        detail: .object(["left": .number(Double(try await store.unusedRecoveryCodes(staffId: member.id)))]), now: now)
            return true
        }
    }

    // MARK: The password

    /// Sets a new password after checking the current one; every console session of the member
    /// ends, this one too (whoever knew the old password is out, and the member signs in again).
    func changePassword(_ member: StaffMember, current: String, new newPassword: String) async throws {
        guard current.utf8.count <= 1024, let hash = member.passwordHash,
              await environment.passwords.verify(current, hash: hash) else {
            throw APIError(.forbidden, "wrong_password", "The current password is wrong.")
        }
        try AccountRules.validatePassword(newPassword)
        let now = environment.clock.now()
        let newHash = await environment.passwords.hash(newPassword)
        try await store.transaction { store in
            try await store.setStaffPassword(staffId: member.id, hash: newHash, now: now)
            try await store.appendAudit(.staff(member.id), studyId: nil, action: "staff.passwordChanged", detail: .object([:]), now: now)
        }
    }
}
