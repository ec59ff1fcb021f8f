import Foundation

/// The values of `console_layout.mustache` every console page shares: the language's `console.`
/// strings, the CSRF token, who is signed in, the study the page belongs to (its tabs, by role)
/// and the flash lines.
struct ConsoleLayout: Sendable {
    var t: [String: String]
    var language: String
    var csrf: String
    var staff: Staff?
    var study: StudyTabs?
    var notice: String?
    var error: String?

    struct Staff: Sendable {
        var name: String
        var admin: Bool
    }

    /// The study's tabs: the pages of the table that are tabs (``ConsolePage/tabs``) and that the
    /// member's role reaches, in the table's order.
    struct StudyTabs: Sendable {
        var id: String
        var title: String
        var role: String
        var tabs: [Tab]
    }

    struct Tab: Sendable {
        var id: String
        var href: String
        var label: String
    }

    init(_ visit: ConsoleVisit, study: ConsoleStudy?, notice: String?, error: String?) {
        t = PortalText.consoleTable(visit.language)
        language = visit.language
        csrf = visit.base.csrfToken
        staff = visit.staff.map { Staff(name: $0.member.name, admin: $0.member.admin) }
        self.study = study.map { current in
            StudyTabs(id: current.study.id, title: current.study.title.text(in: visit.language, fallback: current.study.fallbackLanguage),
                      role: PortalText.text("console.role.\(current.role.rawValue)", visit.language),
                      tabs: ConsolePage.tabs.filter { $0.allows(current) }.compactMap { page in
                          page.tab.map { Tab(id: $0, href: page.uri(study: current.study.id), label: PortalText.text("console.tab.\($0)", visit.language)) }
                      })
        }
        self.notice = notice
        self.error = error
    }
}

struct ConsoleSignInPage: PortalPage {
    var template: String { "console_signin" }
    var email = ""
}

struct ConsoleEnrolCodePage: PortalPage {
    var template: String { "console_enrol_code" }
}

/// The enrolment form: the secret as text (in groups of four) and as a QR code, drawn inline.
struct ConsoleEnrolPage: PortalPage {
    var template: String { "console_enrol" }
    var code: String
    var name: String
    var email: String
    var secret: String
    var secretGroups: String
    var qrPath: String
    var qrSize: Int
}

struct ConsoleRecoveryCodesPage: PortalPage {
    var template: String { "console_recovery" }
    var codes: [String]
}

struct ConsolePasswordPage: PortalPage {
    var template: String { "console_password" }
}

struct ConsoleErrorPage: PortalPage {
    var template: String { "console_error" }
}

struct ConsoleStudiesPage: PortalPage {
    var template: String { "console_studies" }
    var studies: [Row]
    /// Studies whose team the member is invited to, to accept or decline.
    var invitations: [Invitation] = []
    /// Whether the member may create a study (``ConsolePage/createStudy``).
    var admin: Bool

    struct Invitation: Sendable {
        var id: String
        var title: String
        var role: String
    }

    struct Row: Sendable {
        var id: String
        var title: String
        var role: String
        /// Where the study opens: its overview, or for a site's staff its participants.
        var href: String
    }
}

struct ConsoleOverviewPage: PortalPage {
    var template: String { "console_overview" }
    var members: Int
    var pending: Int
    var sheets: Int
    /// Sheets per day, participants over time (joined per day and in all), adherence per day.
    var charts: [DayChart]
    /// How many alerts wait to be seen, and the newest ten of them.
    var openAlerts: Int
    var alerts: [ConsoleAlertsPage.Alert]
    var alertsHref: String
}

struct ConsoleParticipantsPage: PortalPage {
    var template: String { "console_participants" }
    /// Members, then those who left (with their answers, or withdrawn without them).
    var members: [Member]
    var requests: [Request]
    /// Requests an editor denied; shown so the team sees every decision, not only in the audit
    /// trail, and may still approve one (as `join-requests approve` may).
    var denied: [Request]
    var canDecide: Bool
    var paging: Paging?
    var sorts: [Sort]
    /// How many deleted their account while in the study (a count: nothing else of them is kept).
    var accountsDeleted: String?
    /// The study's sites (the form that puts a participant at one offers these), and the member's
    /// own when their role holds at one site.
    var sites: [ConsoleSite] = []
    var ownSite: String?
    var canAssign = false

    struct Paging: Sendable {
        var text: String
        var previous: String?
        var next: String?
    }

    struct Sort: Sendable {
        var href: String
        var label: String
        var chosen: Bool
    }

    struct Member: Sendable {
        var pseudonym: String
        var status: String
        var joined: String
        /// When their newest sheet was answered.
        var lastAnswer: String
        var consent: String
        var sheets: String
        var rate: String
        var flags: String
        var site = ""
    }

    struct Request: Sendable {
        var pseudonym: String
        var requested: String
        var site: String?
        /// For a study that screens: that the rules found them eligible, and when.
        var screened: String? = nil
        /// Their screening answers, kept for the team while the request waits.
        var screeningAnswers: [ScreeningAnswer] = []
    }

    struct ScreeningAnswer: Sendable { var question: String; var answer: String }
}

struct ConsoleTeamPage: PortalPage {
    var template: String { "console_team" }
    var members: [Member]
    /// Open invitations, with what the owner typed.
    var invitations: [Invitation]
    /// The study's sites, in the order added.
    var sites: [ConsoleSite] = []

    struct Invitation: Sendable {
        var number: Int
        var name: String
        var email: String
        var role: String
    }

    struct Member: Sendable {
        var id: Int64
        var name: String
        var email: String
        var role: String
        /// Blind to allocation (the trial's analysts): arms appear to them as codes.
        var blinded: Bool
        /// The site their role holds at (nil: every site), and the choices of the form that changes it.
        var site: String?
        var siteChoices: [ConsoleSite] = []
        var owner = false
    }
}

struct ConsoleAuditPage: PortalPage {
    var template: String { "console_audit" }
    var lines: [Line]
    /// Whether the lines are of every study (the account-wide trail), with a column naming each one's.
    var accountWide: Bool

    struct Line: Sendable {
        var at: String
        var who: String
        var study: String
        var action: String
        var detail: String
    }
}

struct ConsoleDataPage: PortalPage {
    var template: String { "console_data" }
    var questionnaires: [String]
    var canExport: Bool
    /// Each questionnaire's wide file, by the name it downloads under.
    var wideFiles: [WideFile]
    /// The names the downloads have (``ExportFileNames``), which the R and SPSS lines name.
    var files: Files
    /// The study's sites, to keep a download to one (study-wide staff); the member's own site
    /// when their role holds at one (every download keeps to it).
    var sites: [ConsoleSite] = []
    var ownSite: String?

    struct WideFile: Sendable {
        var questionnaire: String
        var file: String
    }

    struct Files: Sendable {
        var answers: String
        var codebook: String
        var wideCodebook: String
        var rScript: String
        var spssData: String
        var spssSyntax: String
        var archive: String
        var prompts: String
        var promptsSyntax: String
    }
}

struct ConsoleQuestionnairesPage: PortalPage {
    var template: String { "console_questionnaires" }
    var questionnaires: [Row]
    /// The modules that may present an upload (``StudyRules/knownModule(_:)``).
    var modules: [ConsoleSettingsPage.Choice]
    var definition: String = ""
    var problems: [String] = []
    /// Whether the member may upload and switch questionnaires (a viewer reads the list only).
    var canEdit = true

    struct Row: Sendable {
        var id: String
        var version: Int
        var title: String
        var module: String
        var kind: String
        var active: Bool
        /// The languages checked for the study (``StudyLanguages``) in which texts are missing,
        /// each with how many: "Ελληνικά 3, Nederlands 12"; the word for none when none is.
        var missing: String
    }
}

struct ConsoleSettingsPage: PortalPage {
    var template: String { "console_settings" }

    /// A study text's field in one language: `titleEl`, labelled in the reader's language.
    struct TextField: Sendable {
        var name: String
        var label: String
        var value: String
        var language: String
    }
    /// The title's and the description's field in each language, English first.
    var titles: [TextField]
    var descriptions: [TextField]
    /// The study's first language (the first choice: none declared) and the others it is written in.
    var firstLanguage: [Choice] = []
    var otherLanguages: [Choice] = []
    /// For each language checked with a gap, the texts its participants read in another one
    /// (``StudyLanguages``): a fallback is never silent.
    var fallbacks: [String] = []
    /// Every text is in every language checked: the line that says so (else nil).
    var noFallback: String? = nil
    var accesses: [Choice]
    var running: Bool
    var mayLeave: Bool
    var starts: String
    var ends: String
    /// The study's schedules as JSON (``StudyRecord/schedules``), empty for none.
    var schedules: String
    var modules: [Choice]
    /// The installed modules' study switches (``StudySwitch``): value is the name.
    var switches: [Choice]

    struct Choice: Sendable {
        var value: String
        var label: String
        var chosen: Bool
    }
}
