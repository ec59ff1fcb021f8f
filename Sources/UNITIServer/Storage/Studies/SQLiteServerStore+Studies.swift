import Foundation
import GRDB
import UNITIProtocol

/// The tables behind ``StudyStore`` (steps of ``ServerMigrations``; never edit a shipped step).
enum StudySchema {
    /// First part of `v1-studies` (``QuestionnaireSchema/v1(_:)`` is the second).
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE studies (
                id TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                description TEXT,
                consent TEXT,
                starts_at REAL,
                ends_at REAL,
                running INTEGER NOT NULL,
                access TEXT NOT NULL,
                password_hash TEXT,
                participants_may_leave INTEGER NOT NULL,
                modules TEXT NOT NULL,
                schedules TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            );
            CREATE TABLE memberships (
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                status TEXT NOT NULL,
                requested_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (study_id, user_id)
            );
            """)
    }

    /// `v4-memberships-joined-at`: when the user last became a member (a questionnaire schedule's
    /// `startOnDay` counts from it). Members from before get the time their status last changed,
    /// the closest time kept.
    static func v4(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE memberships ADD COLUMN joined_at REAL;
            UPDATE memberships SET joined_at = updated_at WHERE status = 'member';
            """)
    }

    /// `v5-study-rewards`: whether the study gives its participants Track Your Hearing rewards
    /// (`study update ID --rewards on|off`); off for every study until a coordinator turns it on.
    static func v5(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE studies ADD COLUMN rewards INTEGER NOT NULL DEFAULT 0")
    }

    /// `v11-study-password-minimum`: the fewest characters a study's password had to have when it
    /// was set (``StudyRecord/passwordMinimumLength``); passwords from before were checked
    /// against 4.
    static func v11(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE studies ADD COLUMN password_minimum INTEGER;
            UPDATE studies SET password_minimum = 4 WHERE password_hash IS NOT NULL;
            """)
    }
}

/// A row of `studies`. Texts, modules and schedules are JSON with sorted keys, times UTC seconds.
struct StudyRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "studies"

    enum Columns: String, ColumnExpression, CaseIterable {
        case id, title, description, consent
        case startsAt = "starts_at", endsAt = "ends_at"
        case running, access
        case passwordHash = "password_hash", passwordMinimumLength = "password_minimum"
        case participantsMayLeave = "participants_may_leave"
        case modules, schedules, rewards
        case createdAt = "created_at", updatedAt = "updated_at"
    }

    /// What a coordinator's change rewrites: everything but the id and the creation time.
    static let changeableColumns = Columns.allCases.filter { $0 != .id && $0 != .createdAt }

    var study: StudyRecord
    var createdAt: Date
    var updatedAt: Date

    init(study: StudyRecord, createdAt: Date, updatedAt: Date) {
        self.study = study
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(row: Row) throws {
        let description: String? = row[Columns.description]
        let consent: String? = row[Columns.consent]
        let schedules: String? = row[Columns.schedules]
        let startsAt: Double? = row[Columns.startsAt]
        let endsAt: Double? = row[Columns.endsAt]
        study = StudyRecord(
            id: row[Columns.id], title: try JSONCoding.decode(LocalizedText.self, from: row[Columns.title]),
            description: try description.map { try JSONCoding.decode(LocalizedText.self, from: $0) },
            consent: try consent.map { try JSONCoding.decode(LocalizedText.self, from: $0) },
            startsAt: startsAt.map(Date.init(timeIntervalSince1970:)), endsAt: endsAt.map(Date.init(timeIntervalSince1970:)),
            running: row[Columns.running], access: StudyAccess(rawValue: row[Columns.access]) ?? .byRequest,
            passwordHash: row[Columns.passwordHash], passwordMinimumLength: row[Columns.passwordMinimumLength],
            participantsMayLeave: row[Columns.participantsMayLeave],
            modules: try JSONCoding.decode([ModuleID].self, from: row[Columns.modules]),
            schedules: try schedules.map { try JSONCoding.decode(JSONValue.self, from: $0) },
            rewards: row[Columns.rewards])
        createdAt = Date(timeIntervalSince1970: row[Columns.createdAt])
        updatedAt = Date(timeIntervalSince1970: row[Columns.updatedAt])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = study.id
        container[Columns.title] = try JSONCoding.string(study.title)
        container[Columns.description] = try study.description.map(JSONCoding.string)
        container[Columns.consent] = try study.consent.map(JSONCoding.string)
        container[Columns.startsAt] = study.startsAt?.timeIntervalSince1970
        container[Columns.endsAt] = study.endsAt?.timeIntervalSince1970
        container[Columns.running] = study.running
        container[Columns.access] = study.access.rawValue
        container[Columns.passwordHash] = study.passwordHash
        container[Columns.passwordMinimumLength] = study.passwordMinimumLength
        container[Columns.participantsMayLeave] = study.participantsMayLeave
        container[Columns.modules] = try JSONCoding.string(study.modules)
        container[Columns.schedules] = try study.schedules.map(JSONCoding.string)
        container[Columns.rewards] = study.rewards
        container[Columns.createdAt] = createdAt.timeIntervalSince1970
        container[Columns.updatedAt] = updatedAt.timeIntervalSince1970
    }
}

/// A membership of a by-request study joined with its user's name.
struct JoinRequestRow: FetchableRecord {
    var request: JoinRequestRecord

    init(row: Row) throws {
        request = JoinRequestRecord(studyId: row["study_id"], userId: row["user_id"], username: row["username"],
                                    status: MembershipStatus(rawValue: row["status"]) ?? .pending,
                                    requestedAt: Date(timeIntervalSince1970: row["requested_at"]))
    }
}

extension SQLiteServerStore: StudyStore {
    public func createStudy(_ study: StudyRecord, now: Date) async throws {
        try await pool.write { db in
            if try StudyRow.exists(db, key: study.id) {
                throw StoreConflict.studyExists
            }
            try StudyRow(study: study, createdAt: now, updatedAt: now).insert(db)
        }
    }

    public func updateStudy(_ study: StudyRecord, now: Date) async throws {
        try await pool.write { db in
            // Only the changeable columns are written: the stored creation time stays.
            try StudyRow(study: study, createdAt: now, updatedAt: now).update(db, columns: StudyRow.changeableColumns)
        }
    }

    public func study(id: String) async throws -> StudyRecord? {
        try await pool.read { db in
            try StudyRow.fetchOne(db, key: id)?.study
        }
    }

    public func studies() async throws -> [StudyRecord] {
        try await pool.read { db in
            try StudyRow.order(StudyRow.Columns.id).fetchAll(db).map(\.study)
        }
    }

    public func membership(studyId: String, userId: Int64) async throws -> MembershipStatus {
        try await pool.read { db in
            let raw = try String.fetchOne(db, sql: "SELECT status FROM memberships WHERE study_id = ? AND user_id = ?",
                                          arguments: [studyId, userId])
            return raw.flatMap(MembershipStatus.init(rawValue:)) ?? .none
        }
    }

    public func memberships(userId: Int64) async throws -> [String: MembershipStatus] {
        try await pool.read { db in
            var result: [String: MembershipStatus] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT study_id, status FROM memberships WHERE user_id = ?", arguments: [userId]) {
                result[row["study_id"]] = MembershipStatus(rawValue: row["status"]) ?? MembershipStatus.none
            }
            return result
        }
    }

    public func setMembership(studyId: String, userId: Int64, status: MembershipStatus, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at, joined_at)
                VALUES (:studyId, :userId, :status, :now, :now, CASE WHEN :status = 'member' THEN :now END)
                ON CONFLICT (study_id, user_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at,
                    requested_at = CASE WHEN excluded.status = 'pending' THEN excluded.requested_at ELSE memberships.requested_at END,
                    joined_at = CASE WHEN excluded.status = 'member' AND memberships.status <> 'member'
                                     THEN excluded.joined_at ELSE memberships.joined_at END
                """, arguments: ["studyId": studyId, "userId": userId, "status": status.rawValue, "now": now.timeIntervalSince1970])
        }
    }

    public func joinRequests(studyId: String?, pendingOnly: Bool, offset: Int, limit: Int) async throws -> (requests: [JoinRequestRecord], total: Int) {
        try await pool.read { db in
            let from = """
                FROM memberships m JOIN users u ON u.id = m.user_id JOIN studies s ON s.id = m.study_id
                WHERE s.access = 'byRequest' AND (:studyId IS NULL OR m.study_id = :studyId) AND (NOT :pending OR m.status = 'pending')
                """
            let arguments: StatementArguments = ["studyId": studyId, "pending": pendingOnly, "limit": limit, "offset": offset]
            let requests = try JoinRequestRow.fetchAll(db, sql: """
                SELECT m.study_id, m.user_id, u.username, m.status, m.requested_at \(from)
                ORDER BY m.requested_at, m.user_id LIMIT :limit OFFSET :offset
                """, arguments: arguments).map(\.request)
            return (requests, try Int.fetchOne(db, sql: "SELECT COUNT(*) \(from)", arguments: arguments) ?? 0)
        }
    }
}
