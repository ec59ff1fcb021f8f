import Foundation
import UNITIProtocol

/// A study's alert rules as stored: the rule, its number, when it was made and removed.
struct StoredAlertRule: Sendable, Hashable {
    var id: Int64
    var studyId: String
    var rule: AlertRule
    var createdAt: Date
    var removedAt: Date?
}

/// One alert: which rule, about whom, when, and whether (by whom, when, with what note) it was seen.
struct StudyAlert: Sendable, Hashable, Decodable {
    var id: Int64
    var ruleId: Int64
    var rule: AlertRule
    var pseudonym: String
    var raisedAt: Date
    var seenAt: Date?
    var seenByName: String?
    var note: String?
}

/// A sheet the safety rules have not been checked against yet.
struct AlertSheet: Sendable {
    var id: Int64
    var userId: Int64
    var pseudonym: String
    var receivedAt: Date
    var sheet: AnswerSheet
}

/// Where alert rules and alerts are kept (``AlertSchema``). Raising an alert is an insert that a
/// second server process checking at the same moment cannot repeat (`ON CONFLICT DO NOTHING`): only
/// the process whose row went in writes the audit line and mails (``AlertMonitor``).
extension ServerStore {
    /// Stores a new rule with its audit line; a study's first rule sets the safety rules'
    /// starting point at the newest sheet (rules look at what arrives from now on).
    func addAlertRule(studyId: String, _ rule: AlertRule, actor: AuditActor, now: Date) async throws -> Int64 {
        let text = try JSONCoding.string(rule)
        return try await database.transaction { db in
            guard let id: Int64 = try await db.row("""
                INSERT INTO alert_rules (study_id, rule, created_at) VALUES (\(studyId), \(text), \(now)) RETURNING id
                """)?["id"] else { throw StoreCorruption("no id for a new alert rule") }
            try await db.execute("""
                INSERT INTO alert_cursors (study_id, sheet_id) SELECT \(studyId), COALESCE(MAX(id), 0) FROM answer_sheets WHERE true
                ON CONFLICT (study_id) DO NOTHING
                """)
            try await Self.appendAudit(db, actor, studyId: studyId, action: "alertRule.add",
                                       detail: .object(["rule": .number(Double(id)), "name": .string(rule.name), "kind": .string(rule.kind.rawValue)]),
                                       now: now)
            return id
        }
    }

    /// Removes a rule (its alerts stay, naming it); false when the study has no such rule in force.
    func removeAlertRule(studyId: String, id: Int64, actor: AuditActor, now: Date) async throws -> Bool {
        try await database.transaction { db in
            let removed = try await db.rows("""
                UPDATE alert_rules SET removed_at = \(now) WHERE id = \(id) AND study_id = \(studyId) AND removed_at IS NULL RETURNING id
                """)
            guard !removed.isEmpty else { return false }
            try await Self.appendAudit(db, actor, studyId: studyId, action: "alertRule.remove", detail: .object(["rule": .number(Double(id))]), now: now)
            return true
        }
    }

    /// A study's rules, oldest first, with those removed when `removed`.
    func alertRules(studyId: String, removed: Bool = false) async throws -> [StoredAlertRule] {
        try await alertRules(where: removed ? "study_id = \(studyId)" : "study_id = \(studyId) AND removed_at IS NULL")
    }

    /// Every rule in force, of every study whose study is running.
    func alertRulesInForce() async throws -> [StoredAlertRule] {
        try await alertRules(where: "removed_at IS NULL AND study_id IN (SELECT id FROM studies WHERE running = \(true))")
    }

    private func alertRules(where condition: SQL) async throws -> [StoredAlertRule] {
        try await database.rows("SELECT id, study_id, rule, created_at, removed_at FROM alert_rules WHERE \(condition) ORDER BY id").map {
            StoredAlertRule(id: try $0["id"], studyId: try $0["study_id"], rule: try JSONCoding.decode(AlertRule.self, from: try $0["rule"]),
                            createdAt: try $0["created_at"], removedAt: try $0["removed_at"])
        }
    }

    /// The next sheets of the study's `questionnaires` the safety rules have not seen, oldest
    /// first, at most `limit`, and how far the cursor may then move (`through`). Only sheets
    /// received before `before` are taken: a sheet's transaction may commit after a later one's,
    /// and waiting a few seconds lets it. The cursor never passes a sheet received since
    /// `before` (it may have a lower id than one received earlier), and it moves over other
    /// studies' sheets too, so each check reads only what arrived since the last.
    func sheetsForAlerts(studyId: String, questionnaires: [String], before: Date, limit: Int) async throws -> (sheets: [AlertSheet], through: Int64?) {
        let cursor: Int64 = try await database.row("SELECT sheet_id FROM alert_cursors WHERE study_id = \(studyId)")?["sheet_id"] ?? 0
        let bounds = try await database.row("""
            SELECT (SELECT MAX(id) FROM answer_sheets WHERE id > \(cursor) AND received_at < \(before)) AS settled,
                   (SELECT MIN(id) FROM answer_sheets WHERE id > \(cursor) AND received_at >= \(before)) AS pending
            """)
        let settled: Int64? = try bounds?["settled"], pending: Int64? = try bounds?["pending"]
        guard let settled, !questionnaires.isEmpty else { return ([], settled.map { min($0, (pending ?? .max) - 1) }) }
        let sheets = try await database.rows("""
            SELECT s.id, s.user_id, u.pseudonym, s.received_at, s.sheet FROM answer_sheets s JOIN users u ON u.id = s.user_id
            WHERE s.id > \(cursor) AND s.id <= \(settled) AND s.study_id = \(studyId) AND s.questionnaire_id IN (\(list: questionnaires))
              AND s.received_at < \(before)
            ORDER BY s.id LIMIT \(limit)
            """).map {
            AlertSheet(id: try $0["id"], userId: try $0["user_id"], pseudonym: try $0["pseudonym"], receivedAt: try $0["received_at"],
                       sheet: try JSONCoding.decode(AnswerSheet.self, from: try $0["sheet"]))
        }
        let reached = sheets.count == limit ? sheets.last!.id : settled
        return (sheets, min(reached, (pending ?? .max) - 1))
    }

    /// Moves the study's safety cursor on to `sheetId` (never back: another process may be ahead).
    func advanceAlertCursor(studyId: String, to sheetId: Int64) async throws {
        try await database.execute("""
            INSERT INTO alert_cursors (study_id, sheet_id) VALUES (\(studyId), \(sheetId))
            ON CONFLICT (study_id) DO UPDATE SET sheet_id = \(sqlite: "MAX", postgres: "GREATEST")(alert_cursors.sheet_id, excluded.sheet_id)
            """)
    }

    /// Raises an alert unless this rule already raised it for this person and occurrence, with its
    /// audit line (by the server); the new alert's id, or nil when it was raised before.
    func raiseAlert(_ rule: StoredAlertRule, userId: Int64, pseudonym: String, occurrence: String, now: Date) async throws -> Int64? {
        try await database.transaction { db in
            guard let id: Int64 = try await db.row("""
                INSERT INTO alerts (study_id, rule_id, user_id, occurrence, raised_at) VALUES (\(rule.studyId), \(rule.id), \(userId), \(occurrence), \(now))
                ON CONFLICT (rule_id, user_id, occurrence) DO NOTHING RETURNING id
                """)?["id"] else { return nil }
            try await Self.appendAudit(db, .server, studyId: rule.studyId, action: "alert.raise", detail: .object([
                "alert": .number(Double(id)), "rule": .number(Double(rule.id)), "kind": .string(rule.rule.kind.rawValue),
                "participant": .string(pseudonym),
            ]), now: now)
            return id
        }
    }

    /// Marks an open alert of the study seen, with the member's note and its audit line; the
    /// pseudonym it is about, or nil when the study has no such alert or it was seen already.
    func markAlertSeen(studyId: String, id: Int64, staffId: Int64, note: String, now: Date) async throws -> String? {
        try await database.transaction { db in
            guard let row = try await db.row("""
                UPDATE alerts SET seen_at = \(now), seen_by = \(staffId), note = \(note)
                WHERE id = \(id) AND study_id = \(studyId) AND seen_at IS NULL
                RETURNING (SELECT pseudonym FROM users WHERE users.id = alerts.user_id) AS pseudonym
                """) else { return nil }
            let pseudonym: String = try row["pseudonym"]
            try await Self.appendAudit(db, .staff(staffId), studyId: studyId, action: "alert.seen", detail: .object([
                "alert": .number(Double(id)), "participant": .string(pseudonym), "note": .string(note),
            ]), now: now)
            return pseudonym
        }
    }

    /// The study's alerts, newest first: the open ones only with `openOnly`, one participant's with `pseudonym`.
    func studyAlerts(studyId: String, openOnly: Bool = false, pseudonym: String? = nil, limit: Int = 500) async throws -> [StudyAlert] {
        var sql: SQL = """
            SELECT a.id, a.rule_id, r.rule, u.pseudonym, a.raised_at, a.seen_at, s.name AS seen_by_name, a.note
            FROM alerts a JOIN alert_rules r ON r.id = a.rule_id JOIN users u ON u.id = a.user_id LEFT JOIN staff s ON s.id = a.seen_by
            WHERE a.study_id = \(studyId)
            """
        if openOnly { sql += " AND a.seen_at IS NULL" }
        if let pseudonym { sql += " AND u.pseudonym = \(pseudonym)" }
        return try await database.rows(sql + " ORDER BY a.id DESC LIMIT \(limit)").map { try $0.decode(StudyAlert.self) }
    }

    /// How many alerts of the study are not seen yet.
    func openAlertCount(studyId: String) async throws -> Int {
        Int(try await database.row("SELECT COUNT(*) AS n FROM alerts WHERE study_id = \(studyId) AND seen_at IS NULL")?["n"] ?? Int64(0))
    }

    /// The study's members with when anything of theirs last arrived (a sheet, a prompt event, a
    /// renewed or new sign-in on a device), or when they joined if nothing has since.
    func memberActivity(studyId: String) async throws -> [(userId: Int64, pseudonym: String, since: Date)] {
        try await database.rows("""
            SELECT m.user_id, u.pseudonym, m.joined_at,
                (SELECT MAX(s.received_at) FROM answer_sheets s WHERE s.user_id = m.user_id) AS sheet_at,
                (SELECT MAX(p.received_at) FROM prompts p WHERE p.user_id = m.user_id) AS prompt_at,
                (SELECT MAX(COALESCE(x.rotated_at, x.created_at)) FROM sessions x WHERE x.user_id = m.user_id) AS session_at
            FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.study_id = \(studyId) AND m.status = \(MembershipStatus.member.rawValue) AND m.joined_at IS NOT NULL
            ORDER BY u.pseudonym
            """).map { row in
            let times: [Date?] = [try row["joined_at"], try row["sheet_at"], try row["prompt_at"], try row["session_at"]]
            return (try row["user_id"], try row["pseudonym"], times.compactMap { $0 }.max()!)
        }
    }
}
extension AlertRule: SQLJSONColumn {}

extension ServerStore {
    /// The study's members who have not agreed to consent version `version` (nor a later one).
    func membersWithoutConsent(studyId: String, version: Int) async throws -> [(userId: Int64, pseudonym: String)] {
        try await database.rows("""
            SELECT m.user_id, u.pseudonym FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.study_id = \(studyId) AND m.status = \(MembershipStatus.member.rawValue)
              AND COALESCE((SELECT MAX(c.version) FROM consent_agreements c WHERE c.user_id = m.user_id AND c.study_id = m.study_id), 0) < \(version)
            ORDER BY u.pseudonym
            """).map { (try $0["user_id"], try $0["pseudonym"]) }
    }
}
