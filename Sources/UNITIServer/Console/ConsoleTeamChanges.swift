import Foundation
import Hummingbird
import UNITIProtocol

/// What an owner does to a study's team beyond giving roles: take a member's role in this study
/// away (`staff unassign`) or close a member's console account altogether (`staff disable`),
/// each after a confirmation page (the form comes back with `confirm=yes`) and through
/// ``StudyAdministration``, whose rules (the last owner stays; who may disable whom) both doors
/// keep, and which writes the audit line.
///
/// A member is reached through this study's team only, so an owner cannot find or touch an
/// account of another team by typing its address.
extension ConsoleRoutes {
    func removeTeamMember(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id, language = try context.console.language
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
            return try context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=memberRemoved")
        } catch {
            return try await failed(teamPage(studyId, language), context, error)
        }
    }

    func disableStaff(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id, language = try context.console.language
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
            return try context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=memberDisabled")
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
