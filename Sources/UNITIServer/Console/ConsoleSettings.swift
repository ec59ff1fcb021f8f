import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// Settings: a study's title, dates, access, modules and messages (the rules are ``StudyAdministration``'s).
extension ConsolePage {
    static let settings = study("settings", "studies/:study/settings", .editor, tab: "settings") { try await $0.settings($2) }
    static let saveSettings = study("saveSettings", .post, "studies/:study/settings", .editor) { try await $0.saveSettings($1, $2) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let settingsPages: [ConsolePage] = [settings, saveSettings]
}

extension ConsoleRoutes {

    func settings(_ context: StudyContext) async throws -> Response {
        let on = try await store.studySwitches(studyId: context.study.study.id)
        let switches = Dictionary(uniqueKeysWithValues: store.modules.studySwitches.map { ($0.name, on.contains($0.key)) })
        return try await page(try await settingsPage(context.study.study, switches: switches, context.console.language), context)
    }

    /// The form for `study`, with the installed modules' switches on as `switches` says (by name).
    func settingsPage(_ study: StudyRecord, switches: [String: Bool], _ language: String) async throws -> ConsoleSettingsPage {
        func fields(_ name: String, _ text: LocalizedText?) -> [ConsoleSettingsPage.TextField] {
            Language.allCases.map { code in
                let field = Self.textField(name, code)
                return .init(name: field, label: PortalText.text("console.settings.\(field)", language), value: text?.values[code.rawValue] ?? "",
                             language: code.rawValue)
            }
        }
        // A fallback is never silent: for each language, the texts its participants read in another.
        let gaps = StudyLanguages.gaps(study, texts: try await StudyLanguages.texts(of: study, store: store))
        let fallbacks = gaps.flatMap { gap in
            gap.readIn.sorted { $0.key < $1.key }.map { other, names in
                PortalText.text(names.count == 1 ? "console.settings.fallback.one" : "console.settings.fallback.other", language, [
                    "language": Self.languageName(gap.language, language), "other": Self.languageName(other, language),
                    "count": "\(names.count)", "texts": StudyLanguages.summary(names, language),
                ])
            }
        }
        let checked = StudyLanguages.checkedLanguages(study).map { Self.languageName($0, language) }.joined(separator: ", ")
        let first = study.languages?.first
        return ConsoleSettingsPage(
            titles: fields("title", study.title), descriptions: fields("description", study.description),
            firstLanguage: [.init(value: "", label: PortalText.text("console.settings.languageNone", language), chosen: first == nil)]
                + Language.allCases.map { .init(value: $0.rawValue, label: Self.languageName($0.rawValue, language), chosen: first == $0.rawValue) },
            otherLanguages: Language.allCases.map { code in
                .init(value: code.rawValue, label: Self.languageName(code.rawValue, language),
                      chosen: study.languages?.dropFirst().contains(code.rawValue) ?? false)
            },
            fallbacks: fallbacks,
            noFallback: fallbacks.isEmpty ? PortalText.text("console.settings.noFallback", language, ["languages": checked]) : nil,
            accesses: StudyAccess.allCases.map { .init(value: $0.rawValue, label: PortalText.text("console.access.\($0.rawValue)", language),
                                                        chosen: $0 == study.access) },
            running: study.running, mayLeave: study.participantsMayLeave,
            starts: study.startsAt.map(Self.day) ?? "", ends: study.endsAt.map(Self.day) ?? "",
            schedules: study.schedules.flatMap { try? JSONCoding.string($0) } ?? "",
            modules: ModuleCatalog.ids.map { .init(value: $0.rawValue, label: PortalText.text("console.module.\($0.rawValue)", language),
                                                   chosen: study.modules.contains($0)) },
            switches: store.modules.studySwitches.map { .init(value: $0.name, label: PortalText.text($0.labelKey, language), chosen: switches[$0.name] ?? false) })
    }

    /// The form field of a study text in a language: `titleEn`, `descriptionEl`.
    static func textField(_ name: String, _ language: Language) -> String { name + language.rawValue.capitalized }

    /// The settings form read into ``StudySettings`` (every field; an empty password keeps the
    /// one set) and changed by the rules `study update` follows; a refused form comes back as
    /// typed, with the one line of the first rule broken.
    func saveSettings(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), before = context.study.study, language = context.console.language
        var settings = StudySettings()
        do {
            // Every language's field; a language whose field is empty has no text (English's
            // stands in for it when a participant reads the study).
            func text(_ name: String) -> LocalizedText? {
                let values = Dictionary(uniqueKeysWithValues: Language.allCases.map { ($0.rawValue, form[Self.textField(name, $0)]) })
                    .filter { !$0.value.isEmpty }
                return values.isEmpty ? nil : LocalizedText(values)
            }
            func day(_ name: String) throws -> Date? {
                guard !form[name].isEmpty else { return nil }
                guard let date = Timestamps.parse(form[name] + "T00:00:00Z") else { throw APIError.invalid("invalid_date", "Give dates as YYYY-MM-DD.") }
                return date
            }
            settings.title = text("title") ?? LocalizedText([:])
            // The first language, then the others ticked in the program's order; with no first
            // language chosen the first ticked one is it, and with none ticked none is declared.
            let first = form["languageFirst"]
            let others = Language.allCases.map(\.rawValue).filter { $0 != first && form["language-\($0)"] == "on" }
            settings.languages = .some(first.isEmpty ? (others.isEmpty ? nil : others) : [first] + others)
            settings.description = .some(text("description"))
            settings.running = form["running"] == "on"
            settings.participantsMayLeave = form["mayLeave"] == "on"
            settings.switches = Dictionary(uniqueKeysWithValues: store.modules.studySwitches.map { ($0.name, form["switch-\($0.name)"] == "on") })
            settings.modules = form.fields.keys.filter { $0.hasPrefix("module-") }.map { String($0.dropFirst(7)) }.sorted()
            guard let access = StudyAccess(rawValue: form["access"]) else { throw APIError.invalid("invalid_access", "Choose how participants join.") }
            settings.access = access
            if !form["password"].isEmpty { settings.password = form["password"] }
            settings.startsAt = .some(try day("starts"))
            settings.endsAt = .some(try day("ends"))
            // The study's schedules as `study update --schedules FILE` takes them: any JSON value, or none.
            let schedules = form["schedules"].trimmingCharacters(in: .whitespacesAndNewlines)
            if schedules.isEmpty {
                settings.schedules = .some(nil)
            } else {
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(schedules.utf8)) else {
                    throw APIError.invalid("invalid_schedules", "The schedules are not JSON.")
                }
                settings.schedules = value
            }
            try await administration(context).update(before.id, settings)
            return context.console.base.redirect(to: "/console/studies/\(before.id)/settings?notice=saved")
        } catch {
            return try await failed(try await settingsPage(settings.shown(on: before), switches: settings.switches, language), context, error)
        }
    }
}
