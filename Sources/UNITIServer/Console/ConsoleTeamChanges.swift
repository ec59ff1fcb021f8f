import Foundation
import Hummingbird
import UNITIProtocol

/// What an owner does to a study's team beyond giving roles: take a member's role in this study
/// away (`staff unassign`) or close a member's console account altogether (`staff disable`),
/// each after a confirmation page (the form comes back with `confirm=yes`) and through
/// ``StudyAdministration``, so each is in the audit trail.
///
/// A member is reached through this study's team only, so an owner cannot find or touch an
/// account of another team by typing its address. Disabling ends the account everywhere, so an
/// owner may disable only a member whose every role is in a study they own and never an
/// administrator; an administrator may disable any member, another administrator too (when one
/// leaves); nobody disables themselves, so one administrator always remains.
extension ConsoleRoutes {
    func removeTeamMember(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id, language = try context.console.language
        let team = try await store.studyTeam(studyId: studyId)
        guard let (member, role) = team.first(where: { $0.member.email == form["email"] }).map({ ($0.member, $0.role) }) else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.notInTeam")
        }
        do {
            if role == .owner, team.filter({ $0.role == .owner }).count == 1 {
                throw APIError.invalid("last_owner", "A study keeps at least one owner; make someone else owner first.")
            }
            guard form["confirm"] == "yes" else {
                return try await page(ConsoleConfirmPage(question: PortalText.text("console.team.removeQuestion", language, ["name": member.name]),
                                                         action: "remove", email: member.email, submit: PortalText.text("console.team.remove", language)),
                                      context)
            }
            _ = try await administration(context).removeRole(of: member, in: studyId)
            return try context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=memberRemoved")
        } catch {
            return try await failed(teamPage(studyId, language), context, error)
        }
    }

    func disableStaff(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = try context.study.study.id, language = try context.console.language
        let actor = try context.staff.member
        guard let member = try await store.studyTeam(studyId: studyId).first(where: { $0.member.email == form["email"] })?.member else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.notInTeam")
        }
        do {
            guard member.id != actor.id else { throw APIError.invalid("disable_self", "You cannot disable your own account.") }
            if !actor.admin {
                guard !member.admin else { throw APIError.invalid("disable_admin", "Only an administrator disables an administrator.") }
                let owned = try await store.studyRoles(staffId: actor.id).filter { $0.value == .owner }.keys
                guard try await Set(store.studyRoles(staffId: member.id).keys).isSubset(of: owned) else {
                    throw APIError.invalid("disable_other_studies", "This member also works on studies you do not own; ask an administrator.")
                }
            }
            guard form["confirm"] == "yes" else {
                return try await page(ConsoleConfirmPage(question: PortalText.text("console.team.disableQuestion", language, ["name": member.name]),
                                                         action: "disable", email: member.email, submit: PortalText.text("console.team.disable", language)),
                                      context)
            }
            _ = try await administration(context).disable(member)
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
