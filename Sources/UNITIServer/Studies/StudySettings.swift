import Foundation
import UNITIProtocol

/// A study's settings as a door has read them, each one optional: `study create|update` gives
/// what its options name, the console's settings form gives every field, its consent page the
/// consent. ``StudyAdministration/create(_:_:owner:)`` and ``StudyAdministration/update(_:_:)``
/// check them by one set of rules (``apply(to:passwords:)``), so both doors refuse the same
/// settings with the same line.
///
/// A field that can be emptied is a double optional: nil leaves it, `.some(nil)` empties it.
struct StudySettings: Sendable {
    var title: LocalizedText?
    var description: LocalizedText??
    /// A new consent text (a changed one becomes the next version).
    var consent: LocalizedText?
    var access: StudyAccess?
    /// A new join password, as typed (hashed here, never kept).
    var password: String?
    var participantsMayLeave: Bool?
    var running: Bool?
    var startsAt: Date??
    var endsAt: Date??
    /// Module ids as given; each must be a known module (``StudyRules/enabledModules(_:)``).
    var modules: [String]?
    var schedules: JSONValue??
    /// The languages the study declares, the first the one its texts fall back to
    /// (``StudyLanguages``); `.some(nil)` declares none.
    var languages: [String]??
    /// Module switches (``StudySwitch``) to turn on (true) or off, by name; each must be a switch
    /// of an installed module (``StudyAdministration`` checks, `unknown_setting`).
    var switches: [String: Bool] = [:]

    /// `study` with these settings, checked: a title in some language, a password of at least
    /// ``StudyRules/minimumPasswordLength`` characters and one for a password study, the end
    /// after the start, known modules, a consent in every language of the title within its
    /// size. Throws the first rule broken (422, its code names it); `study` is not changed then.
    func apply(to study: StudyRecord, passwords: PasswordHasher) async throws -> StudyRecord {
        var result = shown(on: study)
        if title != nil, result.title.values.isEmpty { throw APIError.invalid("invalid_title", "Give the study a title.") }
        if let password {
            let minimum = StudyRules.minimumPasswordLength
            guard password.count >= minimum else {
                throw APIError.invalid("weak_study_password",
                                       "A study password needs at least \(minimum) characters: a short one is guessed quickly, even slowed down.")
            }
            result.passwordHash = await passwords.hash(password)
            result.passwordMinimumLength = minimum
        }
        if result.access == .password && result.passwordHash == nil {
            throw APIError.invalid("weak_study_password", "A password study needs a password.")
        }
        if let start = result.startsAt, let end = result.endsAt, end <= start {
            throw APIError.invalid("invalid_dates", "The end must be after the start.")
        }
        if let modules { result.modules = try StudyRules.enabledModules(modules) }
        if let languages, let codes = languages { result.languages = try StudyLanguages.checked(codes) }
        if let consent,
           let (language, problem) = StudyRules.consentProblems(consent.values, languages: Set(result.title.values.keys)).min(by: { $0.key < $1.key }) {
            throw problem.refusal(language: language)
        }
        return result
    }

    /// `study` as these settings describe it, unchecked (texts trimmed, empty ones dropped; only
    /// known modules; no password): what a refused form shows again.
    func shown(on study: StudyRecord) -> StudyRecord {
        var study = study
        if let title { study.title = Self.trimmed(title) }
        if let description { study.description = description.map(Self.trimmed).flatMap { $0.values.isEmpty ? nil : $0 } }
        if let access { study.access = access }
        if let participantsMayLeave { study.participantsMayLeave = participantsMayLeave }
        if let running { study.running = running }
        if let startsAt { study.startsAt = startsAt }
        if let endsAt { study.endsAt = endsAt }
        if let modules { study.modules = modules.compactMap { try? StudyRules.knownModule($0) } }
        if let schedules { study.schedules = schedules }
        if let languages { study.languages = languages }
        if let consent { study.consent = Self.trimmed(consent) }
        return study
    }

    /// The texts without surrounding white space, empty ones left out.
    static func trimmed(_ text: LocalizedText) -> LocalizedText {
        LocalizedText(text.values.mapValues { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.value.isEmpty })
    }
}

extension StudyRules {
    /// A text as `--title` and the other text options take it: plain English, or a JSON object
    /// of language to text (`{"en":"…","de":"…"}`).
    static func text(_ raw: String, field: String) throws -> LocalizedText {
        guard raw.hasPrefix("{") else { return LocalizedText(["en": raw]) }
        guard let value = try? JSONDecoder().decode([String: String].self, from: Data(raw.utf8)) else {
            throw APIError.invalid("invalid_text", "\(field): give plain text or a JSON object of language to text.")
        }
        return LocalizedText(value)
    }

    /// The largest consent text per language: a consent is read in full before joining.
    static let maximumConsentBytes = 64 * 1024

    /// What is wrong with a consent text of one language.
    enum ConsentProblem: Sendable, Equatable {
        /// A language of the study's title has no text.
        case missing
        /// Longer than ``maximumConsentBytes``.
        case tooLong

        func refusal(language: String) -> APIError {
            switch self {
            case .missing:
                APIError.invalid("consent_missing", "The study is in '\(language)' as well: give the consent in '\(language)' too (e.g. consent.\(language).md).")
            case .tooLong:
                APIError.invalid("consent_too_long", "The consent in '\(language)' is longer than \(maximumConsentBytes) bytes.")
            }
        }
    }

    /// The problems of a consent's texts by language: every language of the study's title needs
    /// a text (so nobody joins reading a language the study does not speak), and none may pass
    /// ``maximumConsentBytes``. Other languages may be left empty. The console marks each beside
    /// its field; the service refuses the first.
    static func consentProblems(_ texts: [String: String], languages: Set<String>) -> [String: ConsentProblem] {
        var problems: [String: ConsentProblem] = [:]
        for language in languages where (texts[language] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems[language] = .missing
        }
        for (language, text) in texts where text.utf8.count > maximumConsentBytes {
            problems[language] = .tooLong
        }
        return problems
    }
}
