import Foundation
import Hummingbird
import UNITIProtocol

/// Sites (issue 48): an owner defines the study's sites and holds team members to one on the team
/// page; an editor puts a participant who belongs to no site at one from the participants page
/// (a site's staff at their own site only), an owner moves one from their page. The rules are
/// ``StudySites``', as on the command line (`uniti-server sites`).
extension ConsolePage {
    static let saveSite = study("saveSite", .post, "studies/:study/team/sites", .owner) { try await $0.saveSite($1, $2) }
    static let holdMember = study("holdMember", .post, "studies/:study/team/site", .owner) { try await $0.holdMember($1, $2) }
    static let assignSite = study("assignSite", .post, "studies/:study/participants/site", .editor, site: true) {
        try await $0.assignSite($1, $2)
    }

    /// This feature's pages (none is a tab).
    static let sitePages: [ConsolePage] = [saveSite, holdMember, assignSite]
}

/// A site as the console's pages list it, and a choice of site in a form.
struct ConsoleSite: Sendable {
    var id: String
    var name: String
    var country: String
    var language: String
    var chosen = false

    init(_ site: StudySite, chosen: Bool = false) {
        (id, name, country, language, self.chosen) = (site.id, site.name, site.country, site.language, chosen)
    }
}

extension ConsoleRoutes {
    func sites(_ context: StudyContext) -> StudySites { StudySites(administration: administration(context)) }

    /// An owner adds a site or changes one (same id).
    func saveSite(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        do {
            let changed = try await sites(context).save(
                StudySite(id: form["site"], name: form["name"], country: form["country"], language: form["language"]), studyId: studyId)
            return context.console.base.redirect(to: ConsolePage.team.uri(study: studyId) + "?notice=\(changed ? "siteSaved" : "siteUnchanged")")
        } catch {
            return try await failed(teamPage(studyId, context.console.language), context, error)
        }
    }

    /// An owner holds a team member to a site, or makes them study-wide again (no site chosen).
    func holdMember(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        do {
            let site = form["site"].isEmpty ? nil : form["site"]
            let changed = try await sites(context).hold(email: form["email"], at: site, studyId: studyId)
            return context.console.base.redirect(to: ConsolePage.team.uri(study: studyId) + "?notice=\(changed ? "teamChanged" : "siteUnchanged")")
        } catch {
            return try await failed(teamPage(studyId, context.console.language), context, error)
        }
    }

    /// Puts a participant at a site: from the participants page by pseudonym (someone who
    /// enrolled at the clinic and belongs to no site yet), or an owner's move from the
    /// participant's page (`back=participant`). A site's staff can only choose their own site.
    func assignSite(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        let pseudonym = form["participant"].trimmingCharacters(in: .whitespaces)
        // A site's staff member's form has no choice: their own site. Another one posted is
        // refused by the rule book (`site_other`), not quietly replaced.
        let site = form["site"].isEmpty ? context.study.site : form["site"]
        let back = form["back"] == "participant" && !pseudonym.isEmpty
            ? ConsolePage.participant.uri(study: studyId, participant: pseudonym) : ConsolePage.participants.uri(study: studyId)
        do {
            let changed = try await sites(context).assign(pseudonym: pseudonym, to: site, studyId: studyId, by: context.study.scope)
            return context.console.base.redirect(to: back + "?notice=\(changed ? "siteAssigned" : "siteUnchanged")")
        } catch let error as APIError {
            let notice = ["no_participant": "siteNoParticipant", "site_other": "siteOther", "site_move_owner": "siteMoveOwner",
                          "unknown_site": "siteUnknown", "site_role": "siteRole"][error.code] ?? "siteRefused"
            return context.console.base.redirect(to: back + "?notice=\(notice)")
        }
    }

    /// The study's sites for a page, the given one chosen.
    func siteChoices(_ studyId: String, chosen: String? = nil) async throws -> [ConsoleSite] {
        try await store.sites(studyId: studyId).map { ConsoleSite($0, chosen: $0.id == chosen) }
    }
}
