import Foundation
import UNITIProtocol

// The view models of the person's own pages (``PortalRoutes/registerAccountPages(on:)``).
// A template asks whether a list is empty with swift-mustache's transform (`{{^empty(studies)}}`).

/// `profile.mustache`: the profile form, the password change and the deactivation, each with its
/// own error line beside it (the layout's error belongs to the profile form).
struct ProfilePage: PortalPage {
    var template: String { "profile" }
    var username: String
    var email: String
    var firstName: String
    var lastName: String
    var genders: [GenderChoice]
    var accountLanguages: [LanguageChoice]
    var passwordError: String?
    var deactivateError: String?
    var deleteError: String?

    struct GenderChoice: Sendable {
        var value: String
        var name: String
        var selected: Bool
    }

    struct LanguageChoice: Sendable {
        var code: String
        var name: String
        var selected: Bool
    }

    /// The form filled from the account, or from what was just posted (after an error).
    init(_ account: UserAccount, _ language: String, posted: PortalForm? = nil) {
        let gender = posted.map { $0["gender"] } ?? account.gender.rawValue
        let chosenLanguage = posted.map { $0["language"] } ?? account.language
        username = posted.map { $0["username"] } ?? account.username
        email = account.email
        firstName = posted.map { $0["firstName"] } ?? account.firstName ?? ""
        lastName = posted.map { $0["lastName"] } ?? account.lastName ?? ""
        genders = Gender.allCases.map { value in
            GenderChoice(value: value.rawValue, name: PortalText.text("portal.account.gender.\(value.rawValue)", language),
                   selected: value.rawValue == gender)
        }
        accountLanguages = PortalText.languages.map { code in
            LanguageChoice(code: code, name: PortalText.text("portal.language.\(code)", code), selected: code == chosenLanguage)
        }
    }
}

/// `studies.mustache`: every study with the person's standing and the form its access asks
/// for, and the join-by-id form with its own error line and the id typed.
struct StudiesPage: PortalPage {
    var template: String { "studies" }
    var studies: [Study]
    var joinError: String?
    var joinStudyId: String?

    struct Study: Sendable {
        var id: String
        var title: String
        var access: String
        var status: String
        /// Not open (yet or any more) to someone who is not a member.
        var closed: Bool
        var joinPublic: Bool
        var joinPassword: Bool
        var joinRequest: Bool
        var mayLeave: Bool
        var leaveLabel: String
        /// A member of a study that keeps its participants: says why there is no leave button.
        var noLeave: Bool
        /// Shown only to those the study lets read it, and never empty.
        var description: String?
        var studyError: String?
        /// The study's current consent text, shown beside the join form (with a box to tick,
        /// its version the form's value) and to a member asked to agree to a new version: its
        /// Markdown as safe HTML (``MarkdownText``), so the template shows it unescaped.
        var consentHTML: String?
        var consentVersion: Int?
        /// A member who has not agreed to the current version: their answers wait.
        var consentNeeded: Bool
        /// What the person agreed to: "version 2 on …".
        var consentAgreed: String?
        /// A randomised member: what their arm asks of them now (never the arm's name).
        var notice: String?
        /// A member of a trial: their visits, each window in UTC days and where it stands.
        var visits: [Visit] = []
        var hasVisits = false
        /// The site of the enrolment link the page was opened with: the join form carries it.
        var site: String?
        var siteText: String?
        /// For a study that screens and that the person may join: its screening page.
        var screeningHref: String?
    }

    struct Visit: Sendable {
        var id: String
        var title: String
        var window: String
        var state: String
        var stateText: String
        var questionnaires: String
    }
}

/// `data.mustache`: the downloads and one page of the person's sheets, newest first.
struct DataPage: PortalPage {
    var template: String { "data" }
    var sheets: [Sheet]
    var paging: PortalPaging.Pager?
    /// The module parts' downloads (``ServerModulePart/portalDownloads``), after the data download.
    var downloads: [Download]

    init(sheets: [Sheet], paging: PortalPaging.Pager?, downloads: [PortalLink], language: String) {
        self.sheets = sheets
        self.paging = paging
        self.downloads = downloads.map { link in
            Download(href: link.href, id: link.id, label: PortalText.text(link.labelKey, language),
                     explanation: link.explanationKey.map { PortalText.text($0, language) })
        }
    }

    struct Download: Sendable {
        var href: String
        var id: String
        var label: String
        var explanation: String?
    }

    struct Sheet: Sendable {
        var id: String
        var title: String
        var when: String
        var partial: Bool
    }
}

/// `sheet.mustache`: one of the person's sheets with every answer in words.
struct SheetPage: PortalPage {
    var template: String { "sheet" }
    var title: String
    var started: String
    var ended: String?
    var partial: Bool
    var answers: [Answer]
    /// The study's texts after saving, shown when the sheet was just saved (``AfterSaving``).
    var afterSaving: [String] = []

    struct Answer: Sendable {
        var question: String
        var answer: String
        var at: String
    }
}
