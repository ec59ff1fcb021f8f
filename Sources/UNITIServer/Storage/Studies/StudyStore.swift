import Foundation
import UNITIProtocol


/// A study as the coordinator defines it: a row of `studies`, read and written by the names of
/// ``CodingKeys`` (a new setting is a property, its key, and its column in both schemas).
public struct StudyRecord: Sendable, Hashable, Codable, StoreRecord {
    public var id: String
    public var title: LocalizedText
    public var description: LocalizedText?
    public var consent: LocalizedText?
    /// The number of the current consent text (``consent``), counted from 1: every change of the
    /// text makes a new version, which members must agree to before their answers are taken
    /// again (``ServerStore/sheetAccess(questionnaireId:studyId:userId:)``). Set by the store.
    public var consentVersion: Int?
    public var startsAt: Date?
    public var endsAt: Date?
    public var running: Bool
    public var access: StudyAccess
    /// Bcrypt hash of the join password of a password study.
    public var passwordHash: String?
    /// The fewest characters the password was required to have when it was set: 8 since issue 27
    /// (``StudyRules/minimumPasswordLength``), 4 for one set before; nil when no rule was checked
    /// (no password, or a study written to the store directly). `study show` warns below 8: a
    /// hash does not tell the password's length.
    public var passwordMinimumLength: Int?
    public var participantsMayLeave: Bool
    /// The modules the study enables, each a known one (``StudyRules/enabledModules(_:)``).
    public var modules: [ModuleID]
    /// Schedules as the coordinator wrote them (JSON), passed to the client unchanged.
    public var schedules: JSONValue?
    /// The languages the study declares, each a ``Language`` code and once, the first the one
    /// its texts fall back to before English (issue 49); nil: none declared.
    public var languages: [String]?

    public init(id: String, title: LocalizedText, description: LocalizedText? = nil, consent: LocalizedText? = nil,
                startsAt: Date? = nil, endsAt: Date? = nil, running: Bool = true, access: StudyAccess = .public,
                passwordHash: String? = nil, passwordMinimumLength: Int? = nil, participantsMayLeave: Bool = true,
                modules: [ModuleID] = [], schedules: JSONValue? = nil, consentVersion: Int? = nil) {
        self.id = id
        self.title = title
        self.description = description
        self.consent = consent
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.running = running
        self.access = access
        self.passwordHash = passwordHash
        self.passwordMinimumLength = passwordMinimumLength
        self.participantsMayLeave = participantsMayLeave
        self.modules = modules
        self.schedules = schedules
        self.consentVersion = consentVersion
    }

    /// The columns of `studies`, besides the times of creation and change.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, title, description, consent, consentVersion, startsAt, endsAt, running, access, passwordHash
        case passwordMinimumLength = "password_minimum", participantsMayLeave, modules, schedules, languages
    }

    /// The language a study text missing in the reader's language falls back to before English.
    public var fallbackLanguage: String? { languages?.first }
}

/// A pending (or decided) request to join a by-request study.
public struct JoinRequestRecord: Sendable, Hashable, Codable {
    public var studyId: String
    public var userId: Int64
    public var username: String
    public var status: MembershipStatus
    public var requestedAt: Date
}

/// Where studies, and who takes part in which, are kept.
///
/// The tables `studies` (texts, modules and schedules as JSON text with sorted keys, times UTC
/// seconds) and `memberships`.
extension ServerStore {
    /// Creates a study; throws ``StoreConflict/studyExists`` when its id is taken. A consent
    /// text becomes its version 1.
    func createStudy(_ study: StudyRecord, now: Date) async throws {
        let inserted = try await database.transaction { db in
            var columns = try SQLColumns(study, omitting: [.consentVersion])
            columns.set("created_at", now)
            columns.set("updated_at", now)
            let inserted = try await db.rows("INSERT INTO studies \(insert: columns) ON CONFLICT (id) DO NOTHING RETURNING id")
            if !inserted.isEmpty, study.consent != nil { try await Self.addConsentVersion(db, studyId: study.id, now: now) }
            return inserted
        }
        if inserted.isEmpty { throw StoreConflict.studyExists }
    }

    /// Replaces the fields of an existing study. A consent text that differs from the stored one
    /// becomes the study's next consent version, in the same transaction.
    func updateStudy(_ study: StudyRecord, now: Date) async throws {
        let consent = try study.consent.map(JSONCoding.string)
        try await database.transaction { db in
            let before: String? = try await db.row("SELECT consent FROM studies WHERE id = \(study.id)")?["consent"]
            // Everything but the id, the consent's version (counted by the store) and the creation time.
            var columns = try SQLColumns(study, omitting: [.id, .consentVersion])
            columns.set("updated_at", now)
            try await db.execute("UPDATE studies SET \(set: columns) WHERE id = \(study.id)")
            if let consent, consent != before { try await Self.addConsentVersion(db, studyId: study.id, now: now) }
        }
    }

    func study(id: String) async throws -> StudyRecord? {
        try await database.row("SELECT \(StudyRecord.columns()) FROM studies WHERE id = \(id)").map { try $0.decode(StudyRecord.self) }
    }

    /// Every study, by id.
    func studies() async throws -> [StudyRecord] {
        try await database.rows("SELECT \(StudyRecord.columns()) FROM studies ORDER BY id").map { try $0.decode(StudyRecord.self) }
    }

    /// The user's standing in a study; `.none` when the user never asked to join.
    func membership(studyId: String, userId: Int64) async throws -> MembershipStatus {
        let status: String? = try await database.row("""
            SELECT status FROM memberships WHERE study_id = \(studyId) AND user_id = \(userId)
            """)?["status"]
        return status.flatMap(MembershipStatus.init(rawValue:)) ?? .none
    }

    /// The user's standing in every study they asked to join, by study id.
    func memberships(userId: Int64) async throws -> [String: MembershipStatus] {
        var result: [String: MembershipStatus] = [:]
        for row in try await database.rows("SELECT study_id, status FROM memberships WHERE user_id = \(userId)") {
            result[try row["study_id"]] = MembershipStatus(rawValue: try row["status"]) ?? MembershipStatus.none
        }
        return result
    }

    /// Sets the user's standing; a new `.pending` also renews the time of the request, and
    /// becoming `.member` (again) records the time of joining.
    func setMembership(studyId: String, userId: Int64, status: MembershipStatus, now: Date) async throws {
        try await Self.setMembership(database, studyId: studyId, userId: userId, status: status, now: now)
    }

    /// ``setMembership(studyId:userId:status:now:)`` in the caller's transaction.
    static func setMembership(_ db: any SQLExecutor, studyId: String, userId: Int64, status: MembershipStatus, now: Date) async throws {
        try await db.execute("""
            INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at, joined_at)
            VALUES (\(studyId), \(userId), \(status.rawValue), \(now), \(now), \(status == .member ? now : nil))
            ON CONFLICT (study_id, user_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at,
                requested_at = CASE WHEN excluded.status = 'pending' THEN excluded.requested_at ELSE memberships.requested_at END,
                joined_at = CASE WHEN excluded.status = 'member' AND memberships.status <> 'member'
                                 THEN excluded.joined_at ELSE memberships.joined_at END
            """)
    }

    /// One page of the requests to join by-request studies (all of them, or one study's; only
    /// the pending ones, or also those decided), oldest first, and how many there are in all.
    func joinRequests(studyId: String?, pendingOnly: Bool, offset: Int, limit: Int) async throws -> (requests: [JoinRequestRecord], total: Int) {
        var from: SQL = """
            FROM memberships m JOIN users u ON u.id = m.user_id JOIN studies s ON s.id = m.study_id WHERE s.access = 'byRequest'
            """
        if let studyId { from += " AND m.study_id = \(studyId)" }
        if pendingOnly { from += " AND m.status = 'pending'" }
        let total: Int = try await database.row("SELECT COUNT(*) AS total \(from)")?["total"] ?? 0
        let requests = try await database.rows("""
            SELECT m.study_id, m.user_id, u.username, m.status, m.requested_at \(from)
            ORDER BY m.requested_at, m.user_id LIMIT \(limit) OFFSET \(offset)
            """).map { try $0.decode(JoinRequestRecord.self) }
        return (requests, total)
    }

    /// Starts one study-password attempt of a person, counted per person and study under `rule`
    /// (`study_password_failures`, part of the person's data) and per study, all accounts
    /// together, under `studyRule` (a throttle count): when either must still wait, returns the
    /// seconds and counts nothing; else counts the attempt under both (until
    /// ``clearStudyPasswordFailures(userId:studyId:)`` says it was right) and returns nil. Check
    /// and count are one transaction holding the person's lock, then the study's count's.
    func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, studyRule: ThrottleRule,
                                   now: Date) async throws -> Int? {
        try await database.transaction { db in
            try await db.lock(.person(userId, .studyPasswords))
            let current = try await db.row("""
                SELECT failures, first_failure, last_failure FROM study_password_failures WHERE user_id = \(userId) AND study_id = \(studyId)
                """).map(Self.throttleCount)
            if let wait = rule.retryAfter(current, now: now) { return wait }
            let studyKey = ThrottleKey(StudyPasswordThrottle.studyKey(studyId), studyRule)
            if let wait = try await Self.throttledAttempt([studyKey], in: db, now: now) { return wait }
            let next = rule.adding(failureAt: now, to: current)
            try await db.execute("""
                INSERT INTO study_password_failures (user_id, study_id, failures, first_failure, last_failure)
                VALUES (\(userId), \(studyId), \(next.failures), \(next.firstFailure), \(next.lastFailure))
                ON CONFLICT (user_id, study_id) DO UPDATE SET failures = excluded.failures,
                    first_failure = excluded.first_failure, last_failure = excluded.last_failure
                """)
            return nil
        }
    }

    /// A right password: forgets the person's count and takes the try back from the study's.
    func clearStudyPasswordFailures(userId: Int64, studyId: String) async throws {
        try await database.transaction { db in
            try await db.execute("DELETE FROM study_password_failures WHERE user_id = \(userId) AND study_id = \(studyId)")
            try await Self.finishThrottledAttempt(clearing: [], takingBack: [StudyPasswordThrottle.studyKey(studyId)], in: db)
        }
    }
}
