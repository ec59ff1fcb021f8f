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
/// Adding a page is one value here (with its handler); nothing else lists pages.
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
    let handle: @Sendable (ConsoleRoutes, Request, ServerRequestContext) async throws -> Response

    init(_ name: String, _ method: HTTPRequest.Method, _ path: String, _ access: ConsoleAccess, tab: String? = nil,
         _ handle: @escaping @Sendable (ConsoleRoutes, Request, ServerRequestContext) async throws -> Response) {
        self.name = name
        self.method = method
        self.path = path
        self.access = access
        self.tab = tab
        self.handle = handle
    }

    /// A page that is read (GET).
    init(_ name: String, _ path: String, _ access: ConsoleAccess, tab: String? = nil,
         _ handle: @escaping @Sendable (ConsoleRoutes, Request, ServerRequestContext) async throws -> Response) {
        self.init(name, .get, path, access, tab: tab, handle)
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
        guard let minimum = minimumRole else { return false }
        return role.map { $0 >= minimum } ?? false
    }

    /// Whether a member reaches a page that is no study's.
    func allows(_ member: StaffMember) -> Bool {
        switch access {
        case .visitor, .signedIn: true
        case .administrator: member.admin
        case .study: false
        }
    }

    /// The page's address, with the study's id (and a questionnaire's) filled in.
    func uri(study: String = "", questionnaire: String = "") -> String {
        "/console/" + path.replacingOccurrences(of: ":study", with: study).replacingOccurrences(of: ":questionnaire", with: questionnaire)
    }

    /// The study's pages.
    static var studyPages: [ConsolePage] { all.filter { $0.minimumRole != nil } }

    /// The study's tabs, in order: the pages that are one.
    static var tabs: [ConsolePage] { all.filter { $0.tab != nil } }
}

extension ConsolePage {
    // Sign-in and enrolment.
    static let signInForm = ConsolePage("signInForm", "signin", .visitor) { try await $0.showSignIn($1, $2) }
    static let signIn = ConsolePage("signIn", .post, "signin", .visitor) { try await $0.signIn($1, $2) }
    static let enrolForm = ConsolePage("enrolForm", "enrol", .visitor) { try await $0.showEnrolment($1, $2) }
    static let enrol = ConsolePage("enrol", .post, "enrol", .visitor) { try await $0.enrol($1, $2) }

    // A member's own pages.
    static let studies = ConsolePage("studies", "", .signedIn) { try await $0.studies($1, $2) }
    static let signOut = ConsolePage("signOut", .post, "signout", .signedIn) { try await $0.signOut($1, $2) }
    static let passwordForm = ConsolePage("passwordForm", "password", .signedIn) { routes, _, context in
        try await routes.page(ConsolePasswordPage(), context)
    }
    static let changePassword = ConsolePage("changePassword", .post, "password", .signedIn) { try await $0.changePassword($1, $2) }
    static let acceptInvitation = ConsolePage("acceptInvitation", .post, "invitations/accept", .signedIn) { try await $0.answerInvitation($1, $2, accept: true) }
    static let declineInvitation = ConsolePage("declineInvitation", .post, "invitations/decline", .signedIn) { try await $0.answerInvitation($1, $2, accept: false) }

    // An administrator's.
    static let createStudy = ConsolePage("createStudy", .post, "studies", .administrator) { try await $0.createStudy($1, $2) }
    static let accountAudit = ConsolePage("accountAudit", "audit", .administrator) { try await $0.accountAudit($1, $2) }

    // A study's: viewers read; the export, set-up and participants' requests need an editor; the
    // team and the audit trail an owner.
    static let overview = ConsolePage("overview", "studies/:study", .study(.viewer), tab: "overview") { try await $0.overview($2) }
    static let participants = ConsolePage("participants", "studies/:study/participants", .study(.viewer), tab: "participants") {
        try await $0.participants($1, $2)
    }
    static let decideRequest = ConsolePage("decideRequest", .post, "studies/:study/participants/decide", .study(.editor)) {
        try await $0.decideRequest($1, $2)
    }
    static let settings = ConsolePage("settings", "studies/:study/settings", .study(.editor), tab: "settings") { try await $0.settings($2) }
    static let saveSettings = ConsolePage("saveSettings", .post, "studies/:study/settings", .study(.editor)) { try await $0.saveSettings($1, $2) }
    static let questionnaires = ConsolePage("questionnaires", "studies/:study/questionnaires", .study(.editor), tab: "questionnaires") {
        try await $0.questionnaires($1, $2)
    }
    static let uploadQuestionnaire = ConsolePage("uploadQuestionnaire", .post, "studies/:study/questionnaires", .study(.editor)) {
        try await $0.uploadQuestionnaire($1, $2)
    }
    static let switchQuestionnaire = ConsolePage("switchQuestionnaire", .post, "studies/:study/questionnaires/active", .study(.editor)) {
        try await $0.switchQuestionnaire($1, $2)
    }
    static let preview = ConsolePage("preview", "studies/:study/questionnaires/:questionnaire/preview", .study(.editor)) { try await $0.preview($2) }
    static let submitPreview = ConsolePage("submitPreview", .post, "studies/:study/questionnaires/:questionnaire/preview", .study(.editor)) {
        try await $0.previewSubmission($1, $2)
    }
    static let questionnaireSettings = ConsolePage("questionnaireSettings", "studies/:study/questionnaires/:questionnaire/settings",
                                                   .study(.editor)) { try await $0.questionnaireSettings($1, $2) }
    static let saveQuestionnaireSettings = ConsolePage("saveQuestionnaireSettings", .post, "studies/:study/questionnaires/:questionnaire/settings",
                                                       .study(.editor)) { try await $0.saveQuestionnaireSettings($1, $2) }
    static let consent = ConsolePage("consent", "studies/:study/consent", .study(.editor), tab: "consent") { try await $0.consent($1, $2) }
    static let publishConsent = ConsolePage("publishConsent", .post, "studies/:study/consent", .study(.editor)) { try await $0.publishConsent($1, $2) }
    static let data = ConsolePage("data", "studies/:study/data", .study(.viewer), tab: "data") { try await $0.data($2) }
    static let export = ConsolePage("export", "studies/:study/data/export", .study(.editor)) { try await $0.export($1, $2) }
    static let codebook = ConsolePage("codebook", "studies/:study/data/codebook.csv", .study(.editor)) { try await $0.codebook($2) }
    static let spssSyntax = ConsolePage("spssSyntax", "studies/:study/data/answers.sps", .study(.editor)) { try await $0.spssSyntax($2) }
    static let adherenceReport = ConsolePage("adherenceReport", "studies/:study/data/adherence.csv", .study(.editor)) {
        try await $0.adherenceReport($1, $2)
    }
    static let team = ConsolePage("team", "studies/:study/team", .study(.owner), tab: "team") { try await $0.team($1, $2) }
    static let addTeamMember = ConsolePage("addTeamMember", .post, "studies/:study/team", .study(.owner)) { try await $0.addTeamMember($1, $2) }
    static let removeTeamMember = ConsolePage("removeTeamMember", .post, "studies/:study/team/remove", .study(.owner)) {
        try await $0.removeTeamMember($1, $2)
    }
    static let withdrawInvitation = ConsolePage("withdrawInvitation", .post, "studies/:study/team/withdraw", .study(.owner)) {
        try await $0.withdrawInvitation($1, $2)
    }
    static let disableStaff = ConsolePage("disableStaff", .post, "studies/:study/team/disable", .study(.owner)) { try await $0.disableStaff($1, $2) }
    static let audit = ConsolePage("audit", "studies/:study/audit", .study(.owner), tab: "audit") { try await $0.audit($2) }

    /// Every page, in the order of the study's tabs where a page is one.
    static let all: [ConsolePage] = [
        signInForm, signIn, enrolForm, enrol,
        studies, signOut, passwordForm, changePassword, acceptInvitation, declineInvitation,
        createStudy, accountAudit,
        overview, participants, decideRequest, settings, saveSettings, questionnaires, uploadQuestionnaire, switchQuestionnaire,
        preview, submitPreview, questionnaireSettings, saveQuestionnaireSettings, consent, publishConsent,
        data, export, codebook, spssSyntax, adherenceReport,
        team, addTeamMember, removeTeamMember, withdrawInvitation, disableStaff, audit,
    ]
}
