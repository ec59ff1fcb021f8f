import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// Studies: the studies a member has a role in and their invitations to a team, an administrator's new study, a study's overview.
extension ConsolePage {
    static let studies = member("studies", "") { try await $0.studies($1, $2) }
    static let acceptInvitation = member("acceptInvitation", .post, "invitations/accept") { try await $0.answerInvitation($1, $2, accept: true) }
    static let declineInvitation = member("declineInvitation", .post, "invitations/decline") { try await $0.answerInvitation($1, $2, accept: false) }
    static let createStudy = administrator("createStudy", .post, "studies") { try await $0.createStudy($1, $2) }
    static let overview = study("overview", "studies/:study", .viewer, tab: "overview") { try await $0.overview($2) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let studiesPages: [ConsolePage] = [studies, acceptInvitation, declineInvitation, createStudy, overview]
}

extension ConsoleRoutes {

    /// The studies the member has a role in (an administrator: all, as owner), the invitations
    /// they may accept or decline, and for an administrator the form that creates a study.
    func studies(_ request: Request, _ context: StaffContext) async throws -> Response {
        try await page(studiesPage(context.staff.member, context.console.language), context, notice: notice(request, context.console.language))
    }

    func studiesPage(_ member: StaffMember, _ language: String) async throws -> ConsoleStudiesPage {
        let roles = try await store.studyRoles(staffId: member.id)
        let all = try await store.studies()
        let sites = try await store.staffSites(staffId: member.id)
        let rows = all.compactMap { study -> ConsoleStudiesPage.Row? in
            guard let role = ConsoleAccess.role(of: member, stored: roles[study.id]) else { return nil }
            let roleText = PortalText.text("console.role.\(role.rawValue)", language)
            // A site's staff start on the participants page (the overview is the whole study's).
            guard role != .owner, let site = sites[study.id] else {
                return .init(id: study.id, title: study.title.text(in: language, fallback: study.fallbackLanguage), role: roleText, href: ConsolePage.overview.uri(study: study.id))
            }
            return .init(id: study.id, title: study.title.text(in: language, fallback: study.fallbackLanguage),
                         role: PortalText.text("console.studies.roleAtSite", language, ["role": roleText, "site": site]),
                         href: ConsolePage.participants.uri(study: study.id))
        }
        let titles = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.title.text(in: language, fallback: $0.fallbackLanguage)) })
        let invitations = try await store.invitations(staffId: member.id).map {
            ConsoleStudiesPage.Invitation(id: $0.studyId, title: titles[$0.studyId] ?? $0.studyId,
                                          role: PortalText.text("console.role.\($0.role.rawValue)", language))
        }
        return ConsoleStudiesPage(studies: rows, invitations: invitations, admin: ConsolePage.createStudy.allows(member))
    }

    /// An administrator creates a study (not running until its team has set it up) and appoints
    /// its owner by e-mail address.
    func createStudy(_ request: Request, _ context: StaffContext) async throws -> Response {
        let form = try await PortalForm.read(request), member = context.staff.member, language = context.console.language
        let id = form["id"].trimmingCharacters(in: .whitespaces)
        do {
            let settings = StudySettings(title: LocalizedText(["en": form["title"]]), running: false)
            try await administration(context).create(id, settings, owner: form["owner"])
            return context.console.base.redirect(to: "/console/studies/\(id)")
        } catch {
            return try await failed(studiesPage(member, language), context, error)
        }
    }

    /// The invited member accepts or declines an invitation to a study's team.
    func answerInvitation(_ request: Request, _ context: StaffContext, accept: Bool) async throws -> Response {
        let form = try await PortalForm.read(request), member = context.staff.member, language = context.console.language
        let team = try team(context)
        do {
            if accept {
                try await team.accept(studyId: form["study"], by: member)
            } else {
                try await team.decline(studyId: form["study"], by: member)
            }
            return context.console.base.redirect(to: "/console?notice=\(accept ? "invitationAccepted" : "invitationDeclined")")
        } catch {
            return try await failed(studiesPage(member, language), context, error)
        }
    }

    /// The study's figures and, over the last ``DayChart/days`` UTC days: sheets per day,
    /// participants over time (members by the day they joined, and their running total), and
    /// adherence per day of the prompts' due times (``ServerStore/adherencePerDay(studyId:days:)``).
    func overview(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id, language = context.console.language, now = environment.clock.now()
        let participants = try await store.studyParticipants(studyId: studyId)
        let members = participants.filter { $0.status == .member }
        let perDay = try await store.sheetsPerDay(studyId: studyId)
        let days = (DayChart.day(now) - DayChart.days + 1)...DayChart.day(now)
        let joined = Dictionary(grouping: members.compactMap { $0.joinedAt.map(DayChart.day) }, by: { $0 }).mapValues { Double($0.count) }
        var total = Double(members.count(where: { ($0.joinedAt.map(DayChart.day) ?? days.lowerBound) < days.lowerBound }))
        var running: [Int: Double] = [:]
        for day in days {
            total += joined[day] ?? 0
            running[day] = total
        }
        let adherence = try await store.adherencePerDay(studyId: studyId, days: days)
        let charts = [
            DayChart(id: "sheets-chart", label: PortalText.text("console.overview.sheetsPerDay", language),
                     bars: Dictionary(perDay.map { ($0.day, Double($0.sheets)) }, uniquingKeysWith: +), today: now),
            DayChart(id: "participants-chart", label: PortalText.text("console.overview.participantsOverTime", language),
                     bars: joined, line: running, today: now),
            DayChart(id: "adherence-chart", label: PortalText.text("console.overview.adherencePerDay", language),
                     bars: adherence.compactMapValues(\.rate), today: now, top: 1, format: { "\(Int(($0 * 100).rounded())) %" }),
        ]
        let open = try await store.studyAlerts(studyId: studyId, openOnly: true, limit: 10)
        return try await page(ConsoleOverviewPage(members: members.count, pending: participants.filter { $0.status == .pending }.count,
                                                  sheets: perDay.reduce(0) { $0 + $1.sheets }, charts: charts,
                                                  openAlerts: try await store.openAlertCount(studyId: studyId),
                                                  alerts: open.map { alertRow($0, study: studyId, language) },
                                                  alertsHref: ConsolePage.alerts.uri(study: studyId)), context)
    }
}
