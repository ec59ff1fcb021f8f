import Foundation
import PostgresNIO
import UNITIProtocol

/// ``StudyStore`` on PostgreSQL: the twin of `SQLiteServerStore+Studies.swift` (texts, modules
/// and schedules as JSON text with sorted keys, times UTC seconds).
extension PostgreSQLServerStore: StudyStore {
    static let studyColumns = """
        id, title, description, consent, starts_at, ends_at, running, access, password_hash, password_minimum,
        participants_may_leave, modules, schedules, rewards
        """

    static func study(_ row: PostgresRandomAccessRow) throws -> StudyRecord {
        let description: String? = try row.value("description")
        let consent: String? = try row.value("consent")
        let schedules: String? = try row.value("schedules")
        let startsAt: Double? = try row.value("starts_at")
        let endsAt: Double? = try row.value("ends_at")
        let passwordMinimum: Int32? = try row.value("password_minimum")
        return StudyRecord(
            id: try row.value("id"), title: try JSONCoding.decode(LocalizedText.self, from: try row.value("title")),
            description: try description.map { try JSONCoding.decode(LocalizedText.self, from: $0) },
            consent: try consent.map { try JSONCoding.decode(LocalizedText.self, from: $0) },
            startsAt: startsAt.map(Date.init(timeIntervalSince1970:)), endsAt: endsAt.map(Date.init(timeIntervalSince1970:)),
            running: try row.value("running"), access: StudyAccess(rawValue: try row.value("access")) ?? .byRequest,
            passwordHash: try row.value("password_hash"), passwordMinimumLength: passwordMinimum.map { Int($0) },
            participantsMayLeave: try row.value("participants_may_leave"),
            modules: try JSONCoding.decode([ModuleID].self, from: try row.value("modules")),
            schedules: try schedules.map { try JSONCoding.decode(JSONValue.self, from: $0) },
            rewards: try row.value("rewards"))
    }

    public func createStudy(_ study: StudyRecord, now: Date) async throws {
        let inserted = try await rows("""
            INSERT INTO studies (id, title, description, consent, starts_at, ends_at, running, access, password_hash,
                password_minimum, participants_may_leave, modules, schedules, rewards, created_at, updated_at)
            VALUES (\(study.id), \(try JSONCoding.string(study.title)), \(try study.description.map(JSONCoding.string)),
                \(try study.consent.map(JSONCoding.string)), \(study.startsAt?.timeIntervalSince1970),
                \(study.endsAt?.timeIntervalSince1970), \(study.running), \(study.access.rawValue), \(study.passwordHash),
                \(study.passwordMinimumLength.map { Int32(clamping: $0) }), \(study.participantsMayLeave), \(try JSONCoding.string(study.modules)),
                \(try study.schedules.map(JSONCoding.string)), \(study.rewards), \(now.timeIntervalSince1970), \(now.timeIntervalSince1970))
            ON CONFLICT (id) DO NOTHING
            RETURNING id
            """)
        if inserted.isEmpty { throw StoreConflict.studyExists }
    }

    public func updateStudy(_ study: StudyRecord, now: Date) async throws {
        // Everything but the id and the creation time.
        try await client.query("""
            UPDATE studies SET title = \(try JSONCoding.string(study.title)), description = \(try study.description.map(JSONCoding.string)),
                consent = \(try study.consent.map(JSONCoding.string)), starts_at = \(study.startsAt?.timeIntervalSince1970),
                ends_at = \(study.endsAt?.timeIntervalSince1970), running = \(study.running), access = \(study.access.rawValue),
                password_hash = \(study.passwordHash), password_minimum = \(study.passwordMinimumLength.map { Int32(clamping: $0) }),
                participants_may_leave = \(study.participantsMayLeave),
                modules = \(try JSONCoding.string(study.modules)), schedules = \(try study.schedules.map(JSONCoding.string)),
                rewards = \(study.rewards), updated_at = \(now.timeIntervalSince1970)
            WHERE id = \(study.id)
            """, logger: logger)
    }

    public func study(id: String) async throws -> StudyRecord? {
        try await rows("SELECT \(unescaped: Self.studyColumns) FROM studies WHERE id = \(id)").first.map(Self.study)
    }

    public func studies() async throws -> [StudyRecord] {
        try await rows("SELECT \(unescaped: Self.studyColumns) FROM studies ORDER BY id").map(Self.study)
    }

    public func membership(studyId: String, userId: Int64) async throws -> MembershipStatus {
        let raw: String? = try await rows("SELECT status FROM memberships WHERE study_id = \(studyId) AND user_id = \(userId)")
            .first.map { try $0.value("status") }
        return raw.flatMap(MembershipStatus.init(rawValue:)) ?? .none
    }

    public func memberships(userId: Int64) async throws -> [String: MembershipStatus] {
        var result: [String: MembershipStatus] = [:]
        for row in try await rows("SELECT study_id, status FROM memberships WHERE user_id = \(userId)") {
            result[try row.value("study_id")] = MembershipStatus(rawValue: try row.value("status")) ?? MembershipStatus.none
        }
        return result
    }

    public func setMembership(studyId: String, userId: Int64, status: MembershipStatus, now: Date) async throws {
        let time = now.timeIntervalSince1970
        let joinedAt: Double? = status == .member ? time : nil
        // Under the person's sheet lock: an upload storing the person's first sheet of one of
        // the study's questionnaires sets `comparison_totals.member` from the membership it
        // reads, so it must not run between this change and the update of those rows.
        try await transaction { connection in
            try await Self.lockPerson(userId, .sheets, on: connection, logger: logger)
            try await connection.query("""
                INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at, joined_at)
                VALUES (\(studyId), \(userId), \(status.rawValue), \(time), \(time), \(joinedAt))
                ON CONFLICT (study_id, user_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at,
                    requested_at = CASE WHEN excluded.status = 'pending' THEN excluded.requested_at ELSE memberships.requested_at END,
                    joined_at = CASE WHEN excluded.status = 'member' AND memberships.status <> 'member'
                                     THEN excluded.joined_at ELSE memberships.joined_at END
                """, logger: logger)
            // Whom an item's comparison counts changed: its version is raised (in the order of the
            // items, as a late upload raises it), so a settled period kept in memory is read again
            // (``SettledCache``). The day snapshots hold everyone's sums, members or not:
            // the current ones stay current.
            try await connection.query("""
                WITH changed AS (
                    UPDATE comparison_totals SET member = \(status == .member)
                    WHERE user_id = \(userId) AND member <> \(status == .member)
                      AND questionnaire_id IN (SELECT id FROM questionnaires WHERE study_id = \(studyId))
                    RETURNING questionnaire_id, label
                ), raised AS (
                    INSERT INTO comparison_versions (questionnaire_id, label, version)
                    SELECT DISTINCT questionnaire_id, label, 1 FROM changed ORDER BY 1, 2
                    ON CONFLICT (questionnaire_id, label) DO UPDATE SET version = comparison_versions.version + 1
                    RETURNING questionnaire_id, label, version
                )
                UPDATE comparison_snapshot_days d SET version = r.version FROM raised r
                WHERE d.questionnaire_id = r.questionnaire_id AND d.label = r.label AND d.version = r.version - 1
                """, logger: logger)
        }
    }

    public func joinRequests(studyId: String?, pendingOnly: Bool, offset: Int, limit: Int) async throws -> (requests: [JoinRequestRecord], total: Int) {
        let total: Int64 = try await rows("""
            SELECT COUNT(*) AS total
            FROM memberships m JOIN studies s ON s.id = m.study_id
            WHERE s.access = 'byRequest' AND (\(studyId)::text IS NULL OR m.study_id = \(studyId)) AND (NOT \(pendingOnly) OR m.status = 'pending')
            """)[0].value("total")
        let requests = try await rows("""
            SELECT m.study_id, m.user_id, u.username, m.status, m.requested_at
            FROM memberships m JOIN users u ON u.id = m.user_id JOIN studies s ON s.id = m.study_id
            WHERE s.access = 'byRequest' AND (\(studyId)::text IS NULL OR m.study_id = \(studyId)) AND (NOT \(pendingOnly) OR m.status = 'pending')
            ORDER BY m.requested_at, m.user_id LIMIT \(Int64(limit)) OFFSET \(Int64(offset))
            """).map { row in
            JoinRequestRecord(studyId: try row.value("study_id"), userId: try row.value("user_id"), username: try row.value("username"),
                              status: MembershipStatus(rawValue: try row.value("status")) ?? .pending,
                              requestedAt: Date(timeIntervalSince1970: try row.value("requested_at")))
        }
        return (requests, Int(total))
    }
}
