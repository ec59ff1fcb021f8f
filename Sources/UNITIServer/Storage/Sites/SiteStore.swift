import Foundation
import UNITIProtocol

/// A study's site (clinical centre): participants belong to one, and a team member may be held to
/// one (``SiteSchema``).
struct StudySite: Sendable, Hashable, Codable {
    var id: String
    var name: String
    /// ISO 3166-1 alpha-2, upper case (`DE`, `BE`, `GR`, `ES`).
    var country: String
    /// The language the site's participants are addressed in (ISO 639-1, `de`, `nl`, `el`, `es`).
    var language: String
}

/// Where sites, participants' sites and site-held team members are kept. Every change is written
/// with its audit line in one transaction.
extension ServerStore {
    /// The study's sites in the order they were added.
    func sites(studyId: String) async throws -> [StudySite] {
        try await database.rows("SELECT id, name, country, language FROM study_sites WHERE study_id = \(studyId) ORDER BY position, id")
            .map { try $0.decode(StudySite.self) }
    }

    /// Adds a site, or changes the name, country and language of one the study has; false when
    /// nothing changed. Audited as `site.add` or `site.change`.
    func saveSite(_ site: StudySite, studyId: String, actor: AuditActor, now: Date) async throws -> Bool {
        try await database.transaction { db in
            let before = try await db.row("""
                SELECT id, name, country, language FROM study_sites WHERE study_id = \(studyId) AND id = \(site.id)
                """).map { try $0.decode(StudySite.self) }
            guard before != site else { return false }
            if before == nil {
                let position: Int64 = try await db.row("SELECT COUNT(*) AS n FROM study_sites WHERE study_id = \(studyId)")?["n"] ?? 0
                try await db.execute("""
                    INSERT INTO study_sites (study_id, id, name, country, language, position)
                    VALUES (\(studyId), \(site.id), \(site.name), \(site.country), \(site.language), \(position))
                    """)
            } else {
                try await db.execute("""
                    UPDATE study_sites SET name = \(site.name), country = \(site.country), language = \(site.language)
                    WHERE study_id = \(studyId) AND id = \(site.id)
                    """)
            }
            try await Self.appendAudit(db, actor, studyId: studyId, action: before == nil ? "site.add" : "site.change", detail: .object([
                "site": .string(site.id), "name": .string(site.name), "country": .string(site.country), "language": .string(site.language),
            ]), now: now)
            return true
        }
    }

    /// The site of each participant of the study who has one, by account id.
    func memberSites(studyId: String) async throws -> [Int64: String] {
        var sites: [Int64: String] = [:]
        for row in try await database.rows("SELECT user_id, site_id FROM member_sites WHERE study_id = \(studyId)") {
            sites[try row["user_id"]] = try row["site_id"]
        }
        return sites
    }

    /// Puts a participant at a site (nil: at none), with the audit line (`site.assign` when they
    /// had none, `site.move` otherwise, naming both sites); false when they were there already.
    func setMemberSite(_ site: String?, userId: Int64, pseudonym: String, studyId: String, actor: AuditActor, now: Date) async throws -> Bool {
        try await database.transaction { db in
            let before: String? = try await db.row("""
                SELECT site_id FROM member_sites WHERE study_id = \(studyId) AND user_id = \(userId)
                """)?["site_id"]
            guard before != site else { return false }
            if let site {
                try await db.execute("""
                    INSERT INTO member_sites (study_id, user_id, site_id, assigned_at) VALUES (\(studyId), \(userId), \(site), \(now))
                    ON CONFLICT (study_id, user_id) DO UPDATE SET site_id = excluded.site_id, assigned_at = excluded.assigned_at
                    """)
            } else {
                try await db.execute("DELETE FROM member_sites WHERE study_id = \(studyId) AND user_id = \(userId)")
            }
            try await Self.appendAudit(db, actor, studyId: studyId, action: before == nil ? "site.assign" : "site.move", detail: .object([
                "participant": .string(pseudonym), "changes": .object(["site": AuditValues.change(before.map(JSONValue.string) ?? .null,
                                                                                                 site.map(JSONValue.string) ?? .null)]),
            ]), now: now)
            return true
        }
    }

    /// The site a team member's role holds at (nil: study-wide).
    func staffSite(staffId: Int64, studyId: String) async throws -> String? {
        try await database.row("SELECT site_id FROM staff_sites WHERE study_id = \(studyId) AND staff_id = \(staffId)")?["site_id"]
    }

    /// The site the member is held to in each study where they are, by study id.
    func staffSites(staffId: Int64) async throws -> [String: String] {
        var sites: [String: String] = [:]
        for row in try await database.rows("SELECT study_id, site_id FROM staff_sites WHERE staff_id = \(staffId)") {
            sites[try row["study_id"]] = try row["site_id"]
        }
        return sites
    }

    /// The site of each site-held member of the study's team, by staff id.
    func staffSites(studyId: String) async throws -> [Int64: String] {
        var sites: [Int64: String] = [:]
        for row in try await database.rows("SELECT staff_id, site_id FROM staff_sites WHERE study_id = \(studyId)") {
            sites[try row["staff_id"]] = try row["site_id"]
        }
        return sites
    }

    /// Holds a team member's role to one site (nil: study-wide again), with the audit line
    /// `team.site`; false when it was so already.
    func setStaffSite(_ site: String?, member: StaffMember, studyId: String, actor: AuditActor, now: Date) async throws -> Bool {
        try await database.transaction { db in
            let before: String? = try await db.row("SELECT site_id FROM staff_sites WHERE study_id = \(studyId) AND staff_id = \(member.id)")?["site_id"]
            guard before != site else { return false }
            if let site {
                try await db.execute("""
                    INSERT INTO staff_sites (study_id, staff_id, site_id) VALUES (\(studyId), \(member.id), \(site))
                    ON CONFLICT (study_id, staff_id) DO UPDATE SET site_id = excluded.site_id
                    """)
            } else {
                try await db.execute("DELETE FROM staff_sites WHERE study_id = \(studyId) AND staff_id = \(member.id)")
            }
            try await Self.appendAudit(db, actor, studyId: studyId, action: "team.site", detail: .object([
                "email": .string(member.email),
                "changes": .object(["site": AuditValues.change(before.map(JSONValue.string) ?? .null, site.map(JSONValue.string) ?? .null)]),
            ]), now: now)
            return true
        }
    }
}
