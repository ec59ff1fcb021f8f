import Foundation
import UNITIProtocol

/// A line of a study's screening log (``ScreeningSchema``).
struct ScreeningEntry: Sendable, Equatable {
    var screenedAt: Date
    /// The site of the enrolment link or code the person came by.
    var site: String?
    /// The account, for an eligible person or an ineligible one who let their answers be kept.
    var userId: Int64?
    var eligible: Bool
    /// The rules not met, in the screening's order.
    var failed: [String]
    /// The answered sheet (JSON), for an ineligible person who let it be kept.
    var answers: String?
}

/// The counts of a screening log (`screening log`, the trial tab, the CONSORT flow).
struct ScreeningCounts: Sendable, Equatable, Codable {
    struct Rule: Sendable, Equatable, Codable {
        var rule: String
        var count: Int
    }

    var screened = 0
    var eligible = 0
    var ineligible = 0
    /// How many were ineligible by each rule, in the screening's order (someone who met none
    /// of two rules counts at both).
    var byRule: [Rule] = []
    /// Of the ineligible, how many let their answers be kept.
    var answersKept = 0

    init(_ entries: [ScreeningEntry], rules: [String]) {
        screened = entries.count
        eligible = entries.count(where: \.eligible)
        ineligible = screened - eligible
        answersKept = entries.count { !$0.eligible && $0.answers != nil }
        let failed = entries.flatMap(\.failed)
        // Rules since removed from the screening are still counted, after the current ones.
        let known = rules + Set(failed).subtracting(rules).sorted()
        byRule = known.map { rule in Rule(rule: rule, count: failed.count { $0 == rule }) }
    }
}

/// Where a study's screening and its log are kept.
extension ServerStore {
    /// The study's screening; nil when it has none.
    func screening(studyId: String) async throws -> StudyScreening? {
        guard let text: String = try await database.row("SELECT design FROM study_screenings WHERE study_id = \(studyId)")?["design"] else {
            return nil
        }
        return try JSONCoding.decode(StudyScreening.self, from: text)
    }

    /// The ids of the studies that screen.
    func screeningStudies() async throws -> Set<String> {
        Set(try await database.rows("SELECT study_id FROM study_screenings").map { try $0["study_id"] })
    }

    /// Sets the study's screening (nil: the study screens no more), audited as `screening.set`
    /// (with the questionnaire and the rules in words) or `screening.remove`; false when
    /// nothing changed.
    func setScreening(_ screening: StudyScreening?, studyId: String, actor: AuditActor, now: Date) async throws -> Bool {
        let text = try screening.map { try JSONCoding.string($0) }
        return try await database.transaction { db in
            let before: String? = try await db.row("SELECT design FROM study_screenings WHERE study_id = \(studyId)")?["design"]
            guard before != text else { return false }
            if let text {
                try await db.execute("""
                    INSERT INTO study_screenings (study_id, design, changed_at) VALUES (\(studyId), \(text), \(now))
                    ON CONFLICT (study_id) DO UPDATE SET design = excluded.design, changed_at = excluded.changed_at
                    """)
            } else {
                try await db.execute("DELETE FROM study_screenings WHERE study_id = \(studyId)")
            }
            let detail: JSONValue = screening.map { screening in
                .object(["questionnaire": .string(screening.questionnaire),
                         "rules": .array(screening.rules.map { .string("\($0.id): \($0.condition)") })])
            } ?? .object([:])
            try await Self.appendAudit(db, actor, studyId: studyId, action: screening == nil ? "screening.remove" : "screening.set",
                                       detail: detail, now: now)
            return true
        }
    }

    /// Adds a line to the screening log (inside the join's transaction for an eligible person).
    func logScreening(_ entry: ScreeningEntry, studyId: String) async throws {
        try await database.execute("""
            INSERT INTO screenings (study_id, site_id, user_id, screened_at, eligible, failed, answers)
            VALUES (\(studyId), \(entry.site), \(entry.userId), \(entry.screenedAt), \(entry.eligible ? 1 : 0),
                    \(entry.failed.joined(separator: ",")), \(entry.answers))
            """)
    }

    /// The answers an eligible person's screening keeps while their request to join waits for
    /// the team (the newest), as the sheet's JSON; nil when none waits.
    func waitingScreening(studyId: String, userId: Int64) async throws -> String? {
        try await database.row("""
            SELECT answers FROM screenings WHERE study_id = \(studyId) AND user_id = \(userId) AND eligible = 1 AND answers IS NOT NULL
            ORDER BY id DESC LIMIT 1
            """)?["answers"]
    }

    /// Drops the answers an eligible person's screening kept while their request waited: once
    /// the team decided, they are a member's first sheet, or go with the refusal.
    func dropWaitingScreening(studyId: String, userId: Int64) async throws {
        try await database.execute("""
            UPDATE screenings SET answers = NULL WHERE study_id = \(studyId) AND user_id = \(userId) AND eligible = 1
            """)
    }

    /// The study's screening log, oldest first; with `site`, that site's lines only.
    func screenings(studyId: String, site: String? = nil) async throws -> [ScreeningEntry] {
        let siteCondition: SQL = site.map { "AND site_id = \($0)" } ?? ""
        return try await database.rows("""
            SELECT screened_at, site_id, user_id, eligible, failed, answers FROM screenings
            WHERE study_id = \(studyId) \(siteCondition) ORDER BY screened_at, id
            """).map { row in
            let failed: String = try row["failed"]
            let eligible: Int64 = try row["eligible"]
            return ScreeningEntry(screenedAt: try row["screened_at"], site: try row["site_id"], userId: try row["user_id"],
                                  eligible: eligible != 0, failed: failed.isEmpty ? [] : failed.split(separator: ",").map(String.init),
                                  answers: try row["answers"])
        }
    }
}
