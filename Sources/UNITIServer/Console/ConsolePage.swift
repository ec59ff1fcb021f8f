import Foundation
import HTTPTypes
import Hummingbird

/// Who may open a console page.
enum ConsoleAccess: Sendable, Hashable {
    /// Anyone: sign-in and enrolment.
    case visitor
    /// A signed-in staff member.
    case signedIn
    /// A signed-in administrator.
    case administrator
    /// A member of the study the path names with at least this role (an administrator is owner
    /// of every study: ``role(of:stored:)``).
    case study(StudyRole)

    /// The role a member has in a study: an administrator is owner of every study; anyone else
    /// has the role stored for them there, or none.
    static func role(of member: StaffMember, stored: StudyRole?) -> StudyRole? {
        member.admin ? .owner : stored
    }
}

/// One page of the console (a route: method and path) with who may open it and, for a study's
/// pages, the tab it is: the one table (``all``) that the router, the role gate
/// (``ConsoleStudyAccess``), the study's tabs (``ConsoleLayout``) and every role decision of a
/// page (may this member export, decide a request, create a study, disable a member) read.
/// Each feature's file (`ConsoleSignIn.swift`, `ConsoleStudies.swift`, …) declares its pages;
/// adding a page is one value there (with its handler); nothing else lists pages.
struct ConsolePage: Sendable, Hashable, CustomStringConvertible {
    /// A stable name, for tests and messages.
    let name: String
    let method: HTTPRequest.Method
    /// The path under `/console` (`studies/:study/data/export`; empty for the studies page).
    let path: String
    let access: ConsoleAccess
    /// For a study's tab: its id (`tab-<id>`, label `console.tab_<id>`); tabs appear in the
    /// table's order.
    let tab: String?
    /// For a study's page: whether a member held to one site (``ConsoleStudy/site``) reaches it.
    /// Such a page keeps to the member's site itself (lists only its participants, answers one
    /// of another site as not found, exports only its rows) or shows nothing of participants.
    let forSiteStaff: Bool
    /// For a study's page: only members whose role is exactly the page's (not a higher one, nor
    /// an administrator): the trial's seed, for its statistician alone.
    let exactRole: Bool
    /// The handler, typed by who reaches the page: a study's page gets the study.
    let handler: Handler

    enum Handler: Sendable {
        case visitor(@Sendable (ConsoleRoutes, Request, ConsoleContext) async throws -> Response)
        case member(@Sendable (ConsoleRoutes, Request, StaffContext) async throws -> Response)
        case study(@Sendable (ConsoleRoutes, Request, StudyContext) async throws -> Response)
    }

    private init(_ name: String, _ method: HTTPRequest.Method, _ path: String, _ access: ConsoleAccess, tab: String?,
                 forSiteStaff: Bool = false, exactRole: Bool = false, _ handler: Handler) {
        self.name = name
        self.method = method
        self.path = path
        self.access = access
        self.tab = tab
        self.forSiteStaff = forSiteStaff
        self.exactRole = exactRole
        self.handler = handler
    }

    /// A page for anyone (sign-in and enrolment).
    static func visitor(_ name: String, _ path: String,
                  _ handle: @escaping @Sendable (ConsoleRoutes, Request, ConsoleContext) async throws -> Response) -> ConsolePage {
        visitor(name, .get, path, handle)
    }

    static func visitor(_ name: String, _ method: HTTPRequest.Method, _ path: String,
                        _ handle: @escaping @Sendable (ConsoleRoutes, Request, ConsoleContext) async throws -> Response) -> ConsolePage {
        ConsolePage(name, method, path, .visitor, tab: nil, .visitor(handle))
    }

    /// A signed-in member's own page.
    static func member(_ name: String, _ path: String,
                  _ handle: @escaping @Sendable (ConsoleRoutes, Request, StaffContext) async throws -> Response) -> ConsolePage {
        member(name, .get, path, handle)
    }

    static func member(_ name: String, _ method: HTTPRequest.Method, _ path: String,
                       _ handle: @escaping @Sendable (ConsoleRoutes, Request, StaffContext) async throws -> Response) -> ConsolePage {
        ConsolePage(name, method, path, .signedIn, tab: nil, .member(handle))
    }

    /// An administrator's page.
    static func administrator(_ name: String, _ path: String,
                  _ handle: @escaping @Sendable (ConsoleRoutes, Request, StaffContext) async throws -> Response) -> ConsolePage {
        administrator(name, .get, path, handle)
    }

    static func administrator(_ name: String, _ method: HTTPRequest.Method, _ path: String,
                              _ handle: @escaping @Sendable (ConsoleRoutes, Request, StaffContext) async throws -> Response) -> ConsolePage {
        ConsolePage(name, method, path, .administrator, tab: nil, .member(handle))
    }

    /// A study's page for members with at least `role` there; with `tab`, one of the study's tabs;
    /// with `site`, one a site's staff reach too (``forSiteStaff``).
    static func study(_ name: String, _ path: String, _ role: StudyRole, tab: String? = nil, site: Bool = false,
                      _ handle: @escaping @Sendable (ConsoleRoutes, Request, StudyContext) async throws -> Response) -> ConsolePage {
        study(name, .get, path, role, tab: tab, site: site, handle)
    }

    static func study(_ name: String, _ method: HTTPRequest.Method, _ path: String, _ role: StudyRole, tab: String? = nil, site: Bool = false,
                      _ handle: @escaping @Sendable (ConsoleRoutes, Request, StudyContext) async throws -> Response) -> ConsolePage {
        ConsolePage(name, method, path, .study(role), tab: tab, forSiteStaff: site, .study(handle))
    }

    /// A study's page for members with exactly `role` there (``exactRole``).
    static func study(_ name: String, _ path: String, only role: StudyRole,
                      _ handle: @escaping @Sendable (ConsoleRoutes, Request, StudyContext) async throws -> Response) -> ConsolePage {
        ConsolePage(name, .get, path, .study(role), tab: nil, exactRole: true, .study(handle))
    }

    static func == (lhs: ConsolePage, rhs: ConsolePage) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
    var description: String { "\(method) /console/\(path)" }

    /// The least study role the page needs (nil: not a study's page).
    var minimumRole: StudyRole? {
        if case .study(let role) = access { role }
        else { nil }
    }

    /// Whether a member with `role` in the page's study reaches it.
    func allows(_ role: StudyRole?) -> Bool {
        guard let minimum = minimumRole, let role else { return false }
        return exactRole ? role == minimum : role >= minimum
    }

    /// Whether the member of ``ConsoleStudy`` (their role, and their site if held to one) reaches it.
    func allows(_ study: ConsoleStudy) -> Bool {
        allows(study.role) && (study.site == nil || forSiteStaff)
    }

    /// Whether a member reaches a page that is no study's.
    func allows(_ member: StaffMember) -> Bool {
        switch access {
        case .visitor, .signedIn: true
        case .administrator: member.admin
        case .study: false
        }
    }

    /// The page's address, with the study's id (and a questionnaire's, a participant's) filled in.
    func uri(study: String = "", questionnaire: String = "", participant: String = "") -> String {
        "/console/" + path.replacingOccurrences(of: ":study", with: study).replacingOccurrences(of: ":questionnaire", with: questionnaire)
            .replacingOccurrences(of: ":participant", with: participant)
    }

    /// The study's pages.
    static var studyPages: [ConsolePage] { all.filter { $0.minimumRole != nil } }

    /// The study's tabs, in order: the pages that are one.
    static var tabs: [ConsolePage] { all.filter { $0.tab != nil } }
}

extension ConsolePage {
    /// Every page, feature by feature (a file `Console<Feature>.swift` each declares its
    /// pages), so the study's tabs come in this order: overview, participants, settings,
    /// questionnaires, consent, data, team, audit (alerts and the trial after participants).
    static let all: [ConsolePage] = signInPages + studiesPages + participantPages + alertPages + trialPages + settingsPages + questionnairePages + consentPages
        + dataPages + teamPages + sitePages + auditPages
}
