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
        return try await page(settingsPage(context.study.study, switches: switches, context.console.language), context)
    }

    /// The form for `study`, with the installed modules' switches on as `switches` says (by name).
    func settingsPage(_ study: StudyRecord, switches: [String: Bool], _ language: String) -> ConsoleSettingsPage {
        func fields(_ name: String, _ text: LocalizedText?) -> [ConsoleSettingsPage.TextField] {
            Language.allCases.map { code in
                let field = Self.textField(name, code)
                return .init(name: field, label: PortalText.text("console.settings.\(field)", language), value: text?.values[code.rawValue] ?? "",
                             language: code.rawValue)
            }
        }
        // A fallback is never silent: the languages a participant would read in English.
        let missing = Language.allCases.filter { code in
            code != .english && (study.title.values[code.rawValue] == nil || (study.description.map { $0.values[code.rawValue] == nil } ?? false))
        }
        let fallback = missing.isEmpty ? nil : PortalText.text("console.settings.fallback", language, [
            "languages": missing.map { Self.languageName($0.rawValue, language) }.joined(separator: ", "),
        ])
        return ConsoleSettingsPage(
            titles: fields("title", study.title), descriptions: fields("description", study.description), fallback: fallback,
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
            return try await failed(settingsPage(settings.shown(on: before), switches: settings.switches, language), context, error)
        }
    }
}
