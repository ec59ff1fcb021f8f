import Foundation
import UNITIProtocol

/// The rule book of a study's sites (issue 48), for the console and `uniti-server sites` alike:
/// who may define sites, put a participant at a site or move them, and hold a team member to a
/// site. A site-held member (``Scope/site``) sees and acts on their own site's participants only;
/// everything here that names a participant answers a participant of another site exactly as one
/// who does not exist (`no_participant`), so a site's staff learn nothing of the others.
///
/// - Defining and changing sites, and holding team members to a site: owners (study-wide).
/// - Putting a participant who belongs to no site at one: an editor; a site-held editor only at
///   their own site (a person who enrolled at the clinic, by the pseudonym their app shows).
/// - Moving a participant from one site to another, or to none: owners only.
struct StudySites: Sendable {
    let administration: StudyAdministration
    var store: ServerStore { administration.store }

    /// Who acts: study-wide (nil, as owners, administrators and the command line do) or held to a site.
    struct Scope: Sendable, Equatable {
        var role: StudyRole
        var site: String?

        /// The command line's operator: an owner, study-wide.
        static let everything = Scope(role: .owner, site: nil)

        /// Whether a participant of `site` (nil: of none) is within reach.
        func reaches(_ site: String?) -> Bool { self.site == nil || self.site == site }
    }

    /// Adds a site or changes one; returns whether anything changed. The id is a study id's
    /// letters; the country two letters (ISO 3166-1), the language two (ISO 639-1).
    func save(_ site: StudySite, studyId: String) async throws -> Bool {
        let study = try await administration.existingStudy(studyId)
        var site = site
        site.id = site.id.trimmingCharacters(in: .whitespaces)
        site.name = site.name.trimmingCharacters(in: .whitespaces)
        site.country = site.country.trimmingCharacters(in: .whitespaces).uppercased()
        site.language = site.language.trimmingCharacters(in: .whitespaces).lowercased()
        guard StudyRules.isValidId(site.id), site.id.count <= 32 else {
            throw APIError.invalid("invalid_site_id", "Site id '\(site.id.prefix(64))' must be 1 to 32 lower-case letters, digits, '-', '_' or '.'.")
        }
        guard (1...100).contains(site.name.count) else { throw APIError.invalid("invalid_site_name", "Give the site a name of 1 to 100 characters.") }
        guard Self.isCode(site.country, letters: "A"..."Z") else {
            throw APIError.invalid("invalid_site_country", "The country is two letters (ISO 3166-1), such as DE, BE, GR or ES.")
        }
        guard Self.isCode(site.language, letters: "a"..."z") else {
            throw APIError.invalid("invalid_site_language", "The language is two letters (ISO 639-1), such as de, nl, el or es.")
        }
        return try await store.saveSite(site, studyId: study.id, actor: administration.actor, now: administration.now)
    }

    private static func isCode(_ text: String, letters: ClosedRange<Unicode.Scalar>) -> Bool {
        text.unicodeScalars.count == 2 && text.unicodeScalars.allSatisfy { letters.contains($0) }
    }

    /// The study's site `id`, or 422 `unknown_site` naming the sites there are.
    func site(_ id: String, studyId: String) async throws -> StudySite {
        let sites = try await store.sites(studyId: studyId)
        guard let site = sites.first(where: { $0.id == id }) else {
            throw APIError.invalid("unknown_site", "\(studyId) has no site '\(id.prefix(64))'"
                                   + (sites.isEmpty ? "; add one with 'sites add'." : "; its sites: \(sites.map(\.id).joined(separator: ", ")).") )
        }
        return site
    }

    /// Puts the participant at `siteId` (nil: at none), by the rules above; returns whether it
    /// changed anything.
    func assign(pseudonym: String, to siteId: String?, studyId: String, by scope: Scope) async throws -> Bool {
        let study = try await administration.existingStudy(studyId)
        var target: String?
        if let siteId { target = try await site(siteId, studyId: study.id).id }
        guard let person = try await store.studyParticipants(studyId: study.id, pseudonym: pseudonym).first,
              scope.reaches(person.site) || person.site == nil else {
            throw Self.noParticipant(pseudonym, study: study.id)
        }
        guard person.site != target else { return false }
        if let held = scope.site, target != held {
            throw APIError(.forbidden, "site_other", "You work at site \(held): you can put participants at \(held) only.")
        }
        if person.site != nil, scope.role != .owner || scope.site != nil {
            throw APIError(.forbidden, "site_move_owner", "\(person.pseudonym) belongs to a site already; only an owner moves a participant to another site.")
        }
        guard scope.role >= .editor else { throw APIError(.forbidden, "site_role", "Putting a participant at a site needs the editor's role.") }
        return try await store.setMemberSite(target, userId: person.userId, pseudonym: person.pseudonym, studyId: study.id,
                                             actor: administration.actor, now: administration.now)
    }

    /// Holds the team member with `email` to a site (nil: study-wide again); owners always act
    /// study-wide. Returns whether it changed anything.
    func hold(email: String, at siteId: String?, studyId: String) async throws -> Bool {
        let study = try await administration.existingStudy(studyId)
        guard let entry = try await store.studyTeam(studyId: study.id).first(where: { $0.member.email.lowercased() == email.lowercased() }) else {
            throw APIError.invalid("not_on_team", "'\(email.prefix(254))' is not on the team of \(study.id).")
        }
        var target: String?
        if let siteId { target = try await site(siteId, studyId: study.id).id }
        if target != nil, entry.role == .owner {
            throw APIError.invalid("site_owner", "\(entry.member.name) is an owner: owners act for every site. Give them the editor's or viewer's role first.")
        }
        return try await store.setStaffSite(target, member: entry.member, studyId: study.id, actor: administration.actor, now: administration.now)
    }

    static func noParticipant(_ pseudonym: String, study: String) -> APIError {
        APIError.invalid("no_participant", "No participant '\(pseudonym.prefix(64))' in \(study) that you can reach.")
    }
}
