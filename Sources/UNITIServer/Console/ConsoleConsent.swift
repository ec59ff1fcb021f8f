import Foundation
import Hummingbird
import UNITIProtocol
import UNITIText

/// Consent: a study's consent texts per language and their versions.
extension ConsolePage {
    /// Viewers read every version and its agreements; publishing is an editor's.
    static let consent = study("consent", "studies/:study/consent", .viewer, tab: "consent", site: true) { try await $0.consent($1, $2) }
    static let publishConsent = study("publishConsent", .post, "studies/:study/consent", .editor) { try await $0.publishConsent($1, $2) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let consentPages: [ConsolePage] = [consent, publishConsent]
}

/// The consent page of a study (`/console/studies/{id}/consent`): every version the study has
/// had with how many agreed to it, and the form that publishes the next one, a text per language.
/// Publishing is `study update --consent` in the browser: the same rules (every language of the
/// study's title needs its text, none longer than the limit: ``StudyRules/consentProblems(_:languages:)``),
/// the same service code (``StudyAdministration/update(_:_:)``, which the store turns into a
/// new version that members are asked to agree to again), the same audit line.
extension ConsoleRoutes {
    func consent(_ request: Request, _ context: StudyContext) async throws -> Response {
        let study = context.study.study, language = context.console.language
        var shown = try await consentPage(study, language, texts: study.consent?.values ?? [:])
        shown.canEdit = ConsolePage.publishConsent.allows(context.study)
        // How many agreed is a count of the whole study, which a site's staff do not see.
        if context.study.site != nil { shown.versions = shown.versions.map { var version = $0; version.agreements = nil; return version } }
        return try await page(shown, context,
                              notice: notice(request, language))
    }

    func consentPage(_ study: StudyRecord, _ language: String, texts: [String: String],
                     errors: [String: String] = [:]) async throws -> ConsoleConsentPage {
        let versions = try await store.consentVersions(studyId: study.id).map { version in
            ConsoleConsentPage.Version(version: version.version, published: Timestamps.format(version.publishedAt),
                                       agreements: String(version.agreements),
                                       texts: Self.languagesFirstEnglish(version.text.values.keys).map {
                                           .init(language: Self.languageName($0, language),
                                                 html: MarkdownText.html(version.text.values[$0] ?? "", topHeadingLevel: 4))
                                       })
        }
        let fields = ConsentFiles.languages(of: study).map { code in
            ConsoleConsentPage.Field(code: code, language: Self.languageName(code, language), text: texts[code] ?? "", fieldError: errors[code])
        }
        return ConsoleConsentPage(fields: fields, versions: versions, current: study.consentVersion)
    }

    /// Publishes the texts as the study's next consent version; each problem of a text is
    /// named beside its field and nothing changes.
    func publishConsent(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), before = context.study.study, language = context.console.language
        var texts: [String: String] = [:]
        for code in ConsentFiles.languages(of: before) {
            texts[code] = form["consent-\(code)"].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let problems = StudyRules.consentProblems(texts, languages: Set(before.title.values.keys))
        guard problems.isEmpty else {
                return try await page(consentPage(before, language, texts: texts, errors: problems.reduce(into: [:]) { errors, entry in
                let name = Self.languageName(entry.key, language)
                errors[entry.key] = entry.value == .missing ? PortalText.text("console.consent.missing", language, ["language": name])
                    : PortalText.text("console.consent.tooLong", language, ["size": PortalText.size(StudyRules.maximumConsentBytes, language)])
            }), context, status: .unprocessableContent, error: PortalText.text("console.error.fields", language))
        }
        let consent = StudySettings.trimmed(LocalizedText(texts))
        guard consent != before.consent else {
            return context.console.base.redirect(to: "/console/studies/\(before.id)/consent?notice=consentUnchanged")
        }
        try await administration(context).update(before.id, StudySettings(consent: consent))
        return context.console.base.redirect(to: "/console/studies/\(before.id)/consent?notice=consentPublished")
    }

    /// The language's name in the page's language (its code where the tables have no name).
    static func languageName(_ code: String, _ language: String) -> String {
        let key = "portal.language.\(code)"
        let name = PortalText.text(key, language)
        return name == key ? code : name
    }

    static func languagesFirstEnglish(_ codes: some Sequence<String>) -> [String] {
        codes.sorted { ($0 == "en" ? 0 : 1, $0) < ($1 == "en" ? 0 : 1, $1) }
    }
}

extension ConsentFiles {
    /// The languages a study's consent is written in: those of its title (each needs its text,
    /// as `--consent` checks), those its consent has, and English; English first.
    static func languages(of study: StudyRecord) -> [String] {
        ConsoleRoutes.languagesFirstEnglish(Set(study.title.values.keys).union(study.consent.map { Array($0.values.keys) } ?? [])
            .union(study.languages ?? []).union(["en"]))
    }
}

/// The consent page's values: a field per language, and the versions newest first.
struct ConsoleConsentPage: PortalPage {
    var template: String { "console_consent" }
    var fields: [Field]
    var versions: [Version]
    var current: Int?
    /// Whether the member may publish a version (a viewer reads them only).
    var canEdit = true

    struct Field: Sendable {
        var code: String
        var language: String
        var text: String
        /// Not `error`: a section of that name would find the layout's error line where the field has none.
        var fieldError: String?
    }

    struct Version: Sendable {
        var version: Int
        var published: String
        /// How many agreed to it (nil: not shown, to a site's staff).
        var agreements: String?
        var texts: [Text]
    }

    struct Text: Sendable {
        var language: String
        /// The version's Markdown as safe HTML (``MarkdownText``), as participants see it.
        var html: String
    }
}
