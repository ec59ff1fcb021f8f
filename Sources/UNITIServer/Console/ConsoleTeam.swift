import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// Team: an owner invites, removes and disables members (``StudyTeam``); removing and disabling ask first.
/// Blinding a member to allocation is the trial's (``ConsolePage/blindMember``).
extension ConsolePage {
    static let team = study("team", "studies/:study/team", .owner, tab: "team") { try await $0.team($1, $2) }
    static let addTeamMember = study("addTeamMember", .post, "studies/:study/team", .owner) { try await $0.addTeamMember($1, $2) }
    static let removeTeamMember = study("removeTeamMember", .post, "studies/:study/team/remove", .owner) {
        try await $0.removeTeamMember($1, $2)
    }
    static let withdrawInvitation = study("withdrawInvitation", .post, "studies/:study/team/withdraw", .owner) {
        try await $0.withdrawInvitation($1, $2)
    }
    static let disableStaff = study("disableStaff", .post, "studies/:study/team/disable", .owner) { try await $0.disableStaff($1, $2) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let teamPages: [ConsolePage] = [team, addTeamMember, removeTeamMember, withdrawInvitation, disableStaff]
}

extension ConsoleRoutes {

    func team(_ request: Request, _ context: StudyContext) async throws -> Response {
        try await page(teamPage(context.study.study.id, context.console.language), context,
                       notice: notice(request, context.console.language))
    }

    /// The team with their roles, and below them the open invitations as the owner typed them.
    func teamPage(_ studyId: String, _ language: String) async throws -> ConsoleTeamPage {
        let blinded = try await store.blindedStaff(studyId: studyId)
        let held = try await store.staffSites(studyId: studyId), sites = try await store.sites(studyId: studyId)
        return ConsoleTeamPage(members: try await store.studyTeam(studyId: studyId).map { entry in
            .init(id: entry.member.id, name: entry.member.name, email: entry.member.email,
                  role: PortalText.text("console.role.\(entry.role.rawValue)", language),
                  blinded: blinded.contains(entry.member.id), site: held[entry.member.id],
                  siteChoices: sites.map { ConsoleSite($0, chosen: held[entry.member.id] == $0.id) }, owner: entry.role == .owner)
        }, invitations: try await store.studyInvitations(studyId: studyId).enumerated().map { index, invitation in
            .init(number: index + 1, name: invitation.name, email: invitation.email,
                  role: PortalText.text("console.role.\(invitation.role.rawValue)", language))
        }, sites: sites.map { ConsoleSite($0) })
    }

    /// An owner invites someone by name and address with a role, or changes a member's role
    /// (``StudyTeam/invite(email:name:role:to:)``): the page says the same for any invitation,
    /// whether or not the address has a staff account.
    func addTeamMember(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        do {
            guard let role = StudyRole(rawValue: form["role"]) else { throw APIError.invalid("invalid_role", "Choose owner, editor, statistician or viewer.") }
            let outcome = try await team(context).invite(email: form["email"], name: form["name"], role: role, to: studyId)
            return context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=\(outcome == .invited ? "invited" : "teamChanged")")
        } catch {
            return try await failed(teamPage(studyId, context.console.language), context, error)
        }
    }

    /// An owner withdraws an open invitation.
    func withdrawInvitation(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        guard try await team(context).withdraw(email: form["email"], from: studyId) else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.notInvited")
        }
        return context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=invitationWithdrawn")
    }
}

/// What an owner does to a study's team beyond giving roles: take a member's role in this study
/// away (`staff unassign`) or close a member's console account altogether (`staff disable`),
/// each after a confirmation page (the form comes back with `confirm=yes`) and through
/// ``StudyAdministration``, whose rules (the last owner stays; who may disable whom) both doors
/// keep, and which writes the audit line.
///
/// A member is reached through this study's team only, so an owner cannot find or touch an
/// account of another team by typing its address.
extension ConsoleRoutes {
    func removeTeamMember(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id, language = context.console.language
        guard let member = try await store.studyTeam(studyId: studyId).first(where: { $0.member.email == form["email"] })?.member else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.notInTeam")
        }
        do {
            let administration = try administration(context)
            try await administration.mayRemoveRole(of: member, in: studyId)
            guard form["confirm"] == "yes" else {
                return try await page(ConsoleConfirmPage(question: PortalText.text("console.team.removeQuestion", language, ["name": member.name]),
                                                         action: "remove", email: member.email, submit: PortalText.text("console.team.remove", language)),
                                      context)
            }
            _ = try await administration.removeRole(of: member, in: studyId)
            return context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=memberRemoved")
        } catch {
            return try await failed(teamPage(studyId, language), context, error)
        }
    }

    func disableStaff(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id, language = context.console.language
        guard let member = try await store.studyTeam(studyId: studyId).first(where: { $0.member.email == form["email"] })?.member else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.notInTeam")
        }
        do {
            let administration = try administration(context)
            try await administration.mayDisable(member)
            guard form["confirm"] == "yes" else {
                return try await page(ConsoleConfirmPage(question: PortalText.text("console.team.disableQuestion", language, ["name": member.name]),
                                                         action: "disable", email: member.email, submit: PortalText.text("console.team.disable", language)),
                                      context)
            }
            _ = try await administration.disable(member)
            return context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=memberDisabled")
        } catch {
            return try await failed(teamPage(studyId, language), context, error)
        }
    }
}

/// The page that asks before a change that cannot be taken back with one click; its form posts
/// the same fields again with `confirm=yes`.
struct ConsoleConfirmPage: PortalPage {
    var template: String { "console_confirm" }
    var question: String
    /// The form's action, relative to the team page.
    var action: String
    var email: String
    var submit: String
}
