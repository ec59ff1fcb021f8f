import Foundation

/// A page's view model: the values one template shows, as stored properties that swift-mustache
/// reads by reflection (`Mirror`), so the compiler checks every name a handler fills in.
///
/// How swift-mustache 2.1 reads Swift values, which the page types rely on: a `Bool` is a
/// condition, an array a section repeated per element (empty: the `{{^ }}` branch), an optional
/// that is nil counts as absent (a name then resolves further up the context, as a missing key
/// did in the dictionaries these types replace), any other value is printed escaped by `{{ }}`.
/// A `[String: String]` (the string table `t`, a form's fields) is read by key.
package protocol PortalPage: Sendable {
    /// The template in `Resources/Portal` that shows this page.
    var template: String { get }
}

/// The values of `layout.mustache` every page shares: language, the text table, the CSRF token
/// of the navigation's forms, the language switch, who is signed in, and the flash messages
/// (a notice after a redirect, the one-line error of a refused form).
struct PortalLayout: Sendable {
    /// The visitor's strings (``PortalText/templateTable(_:)``), read as `{{t.login_title}}`.
    var t: [String: String]
    var language: String
    var csrf: String
    /// Where the language switch returns to.
    var path: String
    var languages: [LanguageChoice]
    /// Present when someone is signed in: the navigation shows their pages and logout.
    var user: SignedInUser?
    var notice: String?
    var error: String?
    /// The module parts' pages in the navigation, after the questionnaires.
    var navigation: [NavigationLink]

    struct LanguageChoice: Sendable {
        var code: String
        var name: String
        var current: Bool
    }

    struct SignedInUser: Sendable {
        var username: String
    }

    struct NavigationLink: Sendable {
        var href: String
        var id: String
        var label: String
    }

    init(_ visit: PortalVisit, notice: String? = nil, error: String? = nil) {
        t = PortalText.templateTable(visit.language)
        language = visit.language
        csrf = visit.csrfToken
        path = visit.path
        languages = PortalText.languages.map { code in
            LanguageChoice(code: code, name: PortalText.text("portal.language.\(code)", code), current: code == visit.language)
        }
        user = visit.session.map { SignedInUser(username: $0.account.username) }
        self.notice = notice
        self.error = error
        navigation = visit.navigation.map { NavigationLink(href: $0.href, id: $0.id, label: PortalText.text($0.labelKey, visit.language)) }
    }
}

/// What a template is rendered with: the layout's values and the page's. `layout.mustache` opens
/// `{{#shared}}{{#page}}`, so a name is looked up in the page first, then in the shared values
/// (a page never names a field as the layout does).
struct PortalDocument<Page: PortalPage, Layout: Sendable>: Sendable {
    var shared: Layout
    var page: Page
}
