import Foundation

/// A study team member (``StaffSchema``): never a participant account, and never mixed with one.
public struct StaffMember: Sendable, Hashable, Codable, StoreRecord {
    public var id: Int64
    public var name: String
    public var email: String
    public var admin: Bool
    /// Nil until the enrolment link was used.
    public var passwordHash: String?
    /// The TOTP secret in base32, nil until enrolled.
    public var totpSecret: String?
    /// The language the member reads the console in (their mails follow it): set by `staff add
    /// --language`, and to the console's language at each enrolment and sign-in; nil until then.
    public var language: String?
    public var enrolled: Bool { passwordHash != nil && totpSecret != nil }

    /// The languages the member's mails are written in: theirs, else every staff mail language.
    var mailLanguages: [String] { language.map { [$0] } ?? PortalText.staffMailLanguages }

    /// The columns read of `staff` (read as `staff_…` beside another table's).
    enum CodingKeys: CodingKey, CaseIterable { case id, name, email, admin, passwordHash, totpSecret, language }
}

/// An owner's invitation of a staff account to a study's team, open until the invited person
/// accepts (the role is theirs then) or declines in the console.
public struct StudyInvitation: Sendable, Hashable, Decodable {
    public var studyId: String
    public var staffId: Int64
    public var role: StudyRole
    /// The name and address the owner typed (the account's own are not shown to the team).
    public var name: String
    public var email: String
    public var invitedAt: Date
}

/// A role a staff member has in one study (issue 31): an owner does everything there, including
/// adding team members and reading the audit trail; an editor sets the study up and handles
/// participants; a statistician (issue 48) reads what a viewer reads and downloads the data, and
/// alone downloads a trial's seed to reproduce its allocations; a viewer reads, and never exports.
public enum StudyRole: String, Sendable, CaseIterable, Comparable, Codable {
    case viewer, statistician, editor, owner

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: StudyRole, rhs: StudyRole) -> Bool { lhs.rank < rhs.rank }
}

/// Where staff accounts, their enrolment links, recovery codes, console sessions and study roles
/// are kept (``StaffSchema``). Secrets (links, recovery codes, session cookies) only as SHA-256
/// hashes, as participants' tokens are.
extension ServerStore {
    // MARK: Staff

    /// Creates a staff member; throws ``StoreConflict/emailTaken`` when the address has one.
    func createStaff(name: String, email: String, admin: Bool, language: String? = nil, now: Date) async throws -> Int64 {
        do {
            return try await database.transaction { db in
                if try await db.row("SELECT 1 AS taken FROM staff WHERE lower(email) = lower(\(email))") != nil {
                    throw StoreConflict.emailTaken
                }
                return try await db.row("""
                    INSERT INTO staff (name, email, admin, language, created_at) VALUES (\(name), \(email), \(admin), \(language), \(now))
                    RETURNING id
                    """)?["id"] ?? 0
            }
        } catch let error where SQLFailure.isUniqueViolation(error) {
            throw StoreConflict.emailTaken
        }
    }

    /// Records the language the member reads the console in (their mails follow it).
    func setStaffLanguage(staffId: Int64, language: String) async throws {
        _ = try await database.rowsWritten("UPDATE staff SET language = \(language) WHERE id = \(staffId)")
    }

    func staffMember(id: Int64) async throws -> StaffMember? {
        try await database.row("SELECT \(Self.staffSelect) FROM staff WHERE id = \(id)").map(Self.staffMember)
    }

    func staffMember(email: String) async throws -> StaffMember? {
        try await database.row("SELECT \(Self.staffSelect) FROM staff WHERE lower(email) = lower(\(email))").map(Self.staffMember)
    }

    /// Every staff member, by name.
    func staffMembers() async throws -> [StaffMember] {
        try await database.rows("SELECT \(Self.staffSelect) FROM staff ORDER BY name, id").map(Self.staffMember)
    }

    /// Keeps a new enrolment link's hash; the member's older links stop working.
    func storeStaffEnrolment(staffId: Int64, tokenHash: String, expiresAt: Date, now: Date) async throws {
        try await database.transaction { db in
            try await db.execute("UPDATE staff_enrolments SET used_at = \(now) WHERE staff_id = \(staffId) AND used_at IS NULL")
            try await db.execute("""
                INSERT INTO staff_enrolments (token_hash, staff_id, expires_at) VALUES (\(tokenHash), \(staffId), \(expiresAt))
                """)
        }
    }

    /// The staff member an open enrolment link belongs to (the link is not used up).
    func staffEnrolment(tokenHash: String, now: Date) async throws -> StaffMember? {
        try await database.row("""
            SELECT \(Self.staffColumns(of: "s")) FROM staff_enrolments e JOIN staff s ON s.id = e.staff_id
            WHERE e.token_hash = \(tokenHash) AND e.used_at IS NULL AND e.expires_at > \(now)
            """).map(Self.staffMember)
    }

    /// Spends an enrolment link and, in the same transaction, sets the password, the TOTP secret
    /// (with the step of the code that confirmed it, so that code is not taken again), the
    /// recovery codes' hashes (replacing any older ones) and ends the member's sessions. Nil when
    /// the link is unknown, used or expired (of two uses at once, one wins).
    func completeStaffEnrolment(tokenHash: String, passwordHash: String, totpSecret: String, confirmedStep: Int64,
                                recoveryCodeHashes: [String], now: Date) async throws -> Int64? {
        try await database.transaction { db in
            guard let staffId: Int64 = try await db.row("""
                UPDATE staff_enrolments SET used_at = \(now)
                WHERE token_hash = \(tokenHash) AND used_at IS NULL AND expires_at > \(now)
                RETURNING staff_id
                """)?["staff_id"] else { return nil }
            try await db.execute("""
                UPDATE staff SET password_hash = \(passwordHash), totp_secret = \(totpSecret), totp_last_step = \(confirmedStep),
                    enrolled_at = \(now) WHERE id = \(staffId)
                """)
            try await db.execute("DELETE FROM staff_recovery_codes WHERE staff_id = \(staffId)")
            for hash in recoveryCodeHashes {
                try await db.execute("INSERT INTO staff_recovery_codes (staff_id, code_hash) VALUES (\(staffId), \(hash))")
            }
            try await db.execute("UPDATE staff_sessions SET ended_at = \(now) WHERE staff_id = \(staffId) AND ended_at IS NULL")
            return staffId
        }
    }

    /// Accepts a TOTP time step for the member once: true when `step` is later than every step
    /// accepted before (one statement, so of two sign-ins with the same code one wins).
    func acceptTOTPStep(staffId: Int64, step: Int64) async throws -> Bool {
        try await database.rowsWritten("""
            UPDATE staff SET totp_last_step = \(step)
            WHERE id = \(staffId) AND (totp_last_step IS NULL OR totp_last_step < \(step)) RETURNING id
            """).isEmpty == false
    }

    /// Uses up one recovery code: true once per code.
    func useRecoveryCode(staffId: Int64, codeHash: String, now: Date) async throws -> Bool {
        try await database.rowsWritten("""
            UPDATE staff_recovery_codes SET used_at = \(now)
            WHERE staff_id = \(staffId) AND code_hash = \(codeHash) AND used_at IS NULL RETURNING staff_id
            """).isEmpty == false
    }

    /// Recovery codes not yet used.
    func unusedRecoveryCodes(staffId: Int64) async throws -> Int {
        try await database.row("""
            SELECT COUNT(*) AS unused FROM staff_recovery_codes WHERE staff_id = \(staffId) AND used_at IS NULL
            """)?["unused"] ?? 0
    }

    /// Sets a new password and ends every console session of the member.
    func setStaffPassword(staffId: Int64, hash: String, now: Date) async throws {
        try await database.transaction { db in
            try await db.execute("UPDATE staff SET password_hash = \(hash) WHERE id = \(staffId)")
            try await db.execute("UPDATE staff_sessions SET ended_at = \(now) WHERE staff_id = \(staffId) AND ended_at IS NULL")
        }
    }

    // MARK: Console sessions

    func createStaffSession(staffId: Int64, tokenHash: String, now: Date) async throws -> Int64 {
        try await database.rowsWritten("""
            INSERT INTO staff_sessions (staff_id, token_hash, created_at, last_seen_at) VALUES (\(staffId), \(tokenHash), \(now), \(now))
            RETURNING id
            """).first?["id"] ?? 0
    }

    /// The live session of a cookie's hash and its member, when it was used within `idle`; its
    /// last use becomes `now`. A session idle longer is ended here, for good.
    func staffSession(tokenHash: String, idle: TimeInterval, now: Date) async throws -> (sessionId: Int64, member: StaffMember)? {
        try await database.transaction { db in
            guard let row = try await db.row("""
                SELECT x.id AS session_id, x.last_seen_at, \(Self.staffColumns(of: "s")) FROM staff_sessions x JOIN staff s ON s.id = x.staff_id
                WHERE x.token_hash = \(tokenHash) AND x.ended_at IS NULL
                """) else { return nil }
            let sessionId: Int64 = try row["session_id"]
            let lastSeen: Date = try row["last_seen_at"]
            guard now.timeIntervalSince(lastSeen) < idle else {
                try await db.execute("UPDATE staff_sessions SET ended_at = \(now) WHERE id = \(sessionId)")
                return nil
            }
            try await db.execute("UPDATE staff_sessions SET last_seen_at = \(now) WHERE id = \(sessionId)")
            return (sessionId, try Self.staffMember(row))
        }
    }

    func endStaffSession(id: Int64, now: Date) async throws {
        try await database.execute("UPDATE staff_sessions SET ended_at = \(now) WHERE id = \(id) AND ended_at IS NULL")
    }

    // MARK: Roles

    /// The member's role in a study; nil when they have none.
    func studyRole(staffId: Int64, studyId: String) async throws -> StudyRole? {
        try await database.row("SELECT role FROM study_roles WHERE staff_id = \(staffId) AND study_id = \(studyId)")
            .flatMap { StudyRole(rawValue: try $0["role"]) }
    }

    /// Every study the member has a role in, by study id.
    func studyRoles(staffId: Int64) async throws -> [String: StudyRole] {
        var roles: [String: StudyRole] = [:]
        for row in try await database.rows("SELECT study_id, role FROM study_roles WHERE staff_id = \(staffId)") {
            roles[try row["study_id"]] = StudyRole(rawValue: try row["role"])
        }
        return roles
    }

    /// A study's team, by name.
    func studyTeam(studyId: String) async throws -> [(member: StaffMember, role: StudyRole)] {
        try await database.rows("""
            SELECT r.role, \(Self.staffColumns(of: "s")) FROM study_roles r JOIN staff s ON s.id = r.staff_id
            WHERE r.study_id = \(studyId) ORDER BY s.name, s.id
            """).compactMap { row -> (member: StaffMember, role: StudyRole)? in
            guard let role = StudyRole(rawValue: try row["role"]) else { return nil }
            return (try Self.staffMember(row), role)
        }
    }

    /// Holds the study's team to the end of the transaction (``StudyAdministration``'s team
    /// changes, so the last owner stays even when two step down at once).
    func lockTeam(studyId: String) async throws {
        try await database.lock(.name(studyId, .studyTeams))
    }

    /// Gives the member a role in a study (replacing the one they had).
    func setStudyRole(staffId: Int64, studyId: String, role: StudyRole) async throws {
        try await database.execute("""
            INSERT INTO study_roles (study_id, staff_id, role) VALUES (\(studyId), \(staffId), \(role.rawValue))
            ON CONFLICT (study_id, staff_id) DO UPDATE SET role = excluded.role
            """)
    }

    /// Takes the member's role in a study away; false when they had none.
    func removeStudyRole(staffId: Int64, studyId: String) async throws -> Bool {
        try await database.rowsWritten("""
            DELETE FROM study_roles WHERE study_id = \(studyId) AND staff_id = \(staffId) RETURNING study_id
            """).isEmpty == false
    }

    /// Closes the member's access at once (someone who left the team, a lost phone with no
    /// recovery code): ends their sessions, forgets password, second factor, recovery codes and
    /// open enrolment links, and takes every study role away, in one transaction. Returns the
    /// studies they had a role in. A new link (`staff link`) lets them enrol again, with no role.
    func disableStaff(staffId: Int64, now: Date) async throws -> [String] {
        try await database.transaction { db in
            try await db.execute("UPDATE staff_sessions SET ended_at = \(now) WHERE staff_id = \(staffId) AND ended_at IS NULL")
            try await db.execute("""
                UPDATE staff SET password_hash = NULL, totp_secret = NULL, totp_last_step = NULL, enrolled_at = NULL WHERE id = \(staffId)
                """)
            try await db.execute("DELETE FROM staff_recovery_codes WHERE staff_id = \(staffId)")
            try await db.execute("DELETE FROM staff_enrolments WHERE staff_id = \(staffId)")
            try await db.execute("DELETE FROM study_invitations WHERE staff_id = \(staffId)")
            return try await db.rows("DELETE FROM study_roles WHERE staff_id = \(staffId) RETURNING study_id")
                .map { try $0["study_id"] as String }.sorted()
        }
    }

    // MARK: Invitations

    /// Invites a staff member to a study's team with a role (replacing an open invitation),
    /// keeping the name and address the owner typed.
    func inviteStaff(staffId: Int64, studyId: String, role: StudyRole, name: String, email: String, now: Date) async throws {
        try await database.execute("""
            INSERT INTO study_invitations (study_id, staff_id, role, name, email, invited_at)
            VALUES (\(studyId), \(staffId), \(role.rawValue), \(name), \(email), \(now))
            ON CONFLICT (study_id, staff_id) DO UPDATE SET role = excluded.role, name = excluded.name, email = excluded.email,
                invited_at = excluded.invited_at
            """)
    }

    /// A study's open invitations, oldest first: what the owner typed, never the account's own name.
    func studyInvitations(studyId: String) async throws -> [StudyInvitation] {
        try await database.rows("""
            SELECT study_id, staff_id, role, name, email, invited_at FROM study_invitations WHERE study_id = \(studyId)
            ORDER BY invited_at, staff_id
            """).compactMap(Self.invitation)
    }

    /// A staff member's open invitations, oldest first.
    func invitations(staffId: Int64) async throws -> [StudyInvitation] {
        try await database.rows("""
            SELECT study_id, staff_id, role, name, email, invited_at FROM study_invitations WHERE staff_id = \(staffId)
            ORDER BY invited_at, study_id
            """).compactMap(Self.invitation)
    }

    /// Takes an open invitation away (accepted, declined or withdrawn); nil when there was none.
    func removeInvitation(staffId: Int64, studyId: String) async throws -> StudyInvitation? {
        try await database.rowsWritten("""
            DELETE FROM study_invitations WHERE study_id = \(studyId) AND staff_id = \(staffId)
            RETURNING study_id, staff_id, role, name, email, invited_at
            """).first.flatMap(Self.invitation)
    }

    /// An invitation of a role this server does not know (a database edited by hand) is none.
    private static func invitation(_ row: SQLRow) throws -> StudyInvitation? {
        guard StudyRole(rawValue: try row["role"]) != nil else { return nil }
        return try row.decode(StudyInvitation.self)
    }

    // MARK: Rows

    private static var staffSelect: SQL { staffColumns(of: "staff") }

    private static func staffColumns(of table: String) -> SQL {
        StaffMember.columns(of: table, prefix: "staff_")
    }

    private static func staffMember(_ row: SQLRow) throws -> StaffMember {
        try row.decode(StaffMember.self, prefix: "staff_")
    }
}
