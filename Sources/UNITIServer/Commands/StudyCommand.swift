import ArgumentParser
import Foundation
import UNITIProtocol
import UNITIText

/// `uniti-server study create|update|list|show|modules|consent|languages`: the coordinator defines studies
/// (and turns the installed modules' study switches on or off with `--NAME on|off`,
/// ``StudySwitch``) and reads the consent's versions, as the console's consent page shows them.
struct StudyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study", abstract: "Create, change and inspect studies.",
        subcommands: [Create.self, Update.self, List.self, Show.self, Modules.self, Consent.self, Languages.self])

    /// The study fields a coordinator can set; all optional so `update` changes only what is given.
    struct Fields: ParsableArguments {
        @Option(help: "Title (plain English text, or JSON like '{\"en\":\"...\",\"de\":\"...\"}').")
        var title: String?
        @Option(help: "Description (text or JSON as for --title).")
        var description: String?
        @Option(help: ArgumentHelp("Consent shown before joining: files, one per language, named NAME.<lang>.md (e.g. consent.en.md, consent.de.md; a name without a language, such as consent.md or consent.txt, is English), or text or JSON as for --title. A value that names no file but looks like one is refused. A changed text is a new version, which members are asked to agree to again.", valueName: "file-or-text"))
        var consent: [String] = []
        @Option(help: "How participants join: public, password or byRequest.")
        var access: StudyAccess?
        @Option(help: ArgumentHelp("Join password of a password study (at least \(StudyRules.minimumPasswordLength) characters)."))
        var password: String?
        @Flag(inversion: .prefixedNo, help: "Whether participants may leave the study.")
        var participantsMayLeave: Bool?
        @Flag(inversion: .prefixedNo, help: "Whether the study is running (open for joining and answers).")
        var running: Bool?
        @Option(help: "Start time, ISO 8601 (e.g. 2026-12-01T00:00:00Z).")
        var starts: String?
        @Option(help: "End time, ISO 8601.")
        var ends: String?
        @Option(help: ArgumentHelp("Enabled modules, comma-separated: \(StudyRules.knownModuleList)."))
        var modules: String?
        @Option(help: "JSON file with the study's schedules.")
        var schedules: String?
        @Option(help: ArgumentHelp("The languages the study is written in, comma-separated (\(Language.allCases.map(\.rawValue).joined(separator: ", "))), the first the one a participant of another language reads; 'none' declares none (English is the fallback).", valueName: "codes"))
        var languages: String?
        /// The installed modules' switches as typed (`--rewards on`, `--rewards=off`): options
        /// the command line cannot know when it is compiled, read by ``switches()``.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp(Self.switchesHelp, valueName: "--setting on|off"))
        var moduleSwitches: [String] = []

        /// What `--help` says of the installed modules' switches.
        static var switchesHelp: String {
            let switches = ServerModules.installed.studySwitches
            guard !switches.isEmpty else { return "Settings of installed modules (this server has none)." }
            return "Settings of installed modules, each on or off (new studies: off): "
                + switches.map { "--\($0.name) (\($0.help))" }.joined(separator: "; ") + "."
        }

        /// The module switches given, by name: each `--NAME on|off` or `--NAME=on|off` of an
        /// installed module's switch; anything else is refused, named.
        func switches() throws -> [String: Bool] {
            var result: [String: Bool] = [:]
            var rest = moduleSwitches[...]
            while let token = rest.popFirst() {
                guard token.hasPrefix("--"), token.count > 2 else { throw ValidationError("Unexpected argument '\(token.prefix(64))'.") }
                var name = String(token.dropFirst(2)), value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard ServerModules.installed.studySwitch(named: name) != nil else {
                    throw ValidationError("Unknown option '--\(name.prefix(64))'.")
                }
                guard let text = value ?? rest.popFirst(), let chosen = Switch(rawValue: text) else {
                    throw ValidationError("--\(name): give on or off.")
                }
                result[name] = chosen == .on
            }
            return result
        }

        func validate() throws {
            _ = try switches()
        }

        /// The options given, as the settings the service checks (``StudySettings``); what cannot
        /// be read (a time, a file) is refused here, with the option named.
        func settings() throws -> StudySettings {
            var settings = StudySettings()
            settings.title = try title.map { try StudyRules.text($0, field: "--title") }
            if let description { settings.description = try StudyRules.text(description, field: "--description") }
            if !consent.isEmpty { settings.consent = try ConsentFiles.text(consent) }
            settings.access = access
            settings.password = password
            settings.participantsMayLeave = participantsMayLeave
            settings.running = running
            if let starts { settings.startsAt = try Self.time(starts, option: "--starts") }
            if let ends { settings.endsAt = try Self.time(ends, option: "--ends") }
            settings.modules = modules.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            if let schedules {
                let data: Data
                do { data = try Data(contentsOf: URL(fileURLWithPath: schedules)) } catch {
                    throw ValidationError("--schedules \(schedules): no such file, or it cannot be read.")
                }
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else {
                    throw ValidationError("--schedules \(schedules): not JSON.")
                }
                settings.schedules = value
            }
            if let languages {
                settings.languages = .some(languages == "none" ? nil
                    : languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            }
            settings.switches = try switches()
            return settings
        }

        static func time(_ raw: String, option: String) throws -> Date {
            guard let date = Timestamps.parse(raw) else {
                throw ValidationError("\(option): give an ISO 8601 time with offset, e.g. 2026-12-01T00:00:00Z.")
            }
            return date
        }
    }

    /// A setting turned on or off.
    enum Switch: String, CaseIterable, ExpressibleByArgument {
        case on, off
    }

    /// A study as the coordinator sees it: what participants are shown (``StudyInfo``), and beside
    /// it the settings only the coordinator sees: each installed module's switch by name
    /// (`"rewards": true`), on when `switches` holds it.
    static func overview(_ study: StudyRecord, questionnaires: [QuestionnaireDocument],
                         switches: Set<StudySwitch.Key> = [], modules: ServerModules = .installed) throws -> JSONValue {
        var info = StudyPresenter.info(study, membership: .none, questionnaires: questionnaires)
        info.description = study.description  // the coordinator sees it, whatever a stranger sees
        guard case .object(var fields) = try JSONDecoder().decode(JSONValue.self, from: JSONCoding.data(info)) else {
            throw ValidationError("Study '\(study.id)' could not be shown.")
        }
        for declared in modules.studySwitches { fields[declared.name] = .bool(switches.contains(declared.key)) }
        return .object(fields)
    }

    /// The warning for a study whose password may be shorter than the rule asks (set when 4
    /// characters were enough, or written to the store directly): it keeps working, but a short
    /// one is guessed quickly. Nil when there is nothing to warn about.
    static func passwordWarning(_ study: StudyRecord) -> String? {
        let minimum = StudyRules.minimumPasswordLength
        guard study.passwordHash != nil, (study.passwordMinimumLength ?? 0) < minimum else { return nil }
        let when = study.passwordMinimumLength.map { "when \($0) characters were enough" } ?? "without a length check"
        return "warning: study '\(study.id)' has a password set \(when), so it may be shorter than \(minimum) characters; "
            + "it still works. Give it one of at least \(minimum) characters with 'study update \(study.id) --password …'."
    }

    struct Create: AsyncParsableCommand {
        // Computed: the installed modules' switches are known once the program's main has run.
        static var configuration: CommandConfiguration { CommandConfiguration(abstract: "Create a study.", discussion: Fields.switchesHelp) }
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id: lower-case letters, digits and '-'.") var id: String
        @OptionGroup var fields: Fields

        func run() async throws {
            let settings = try fields.settings()
            let store = try await database.openStore()
            try await StudyAdministration(store: store, actor: .operator, now: Date()).create(id, settings)
            print("Created study \(id).")
        }
    }

    struct Update: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Change fields of a study.", discussion: Fields.switchesHelp)
        }
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var id: String
        @OptionGroup var fields: Fields

        func run() async throws {
            let settings = try fields.settings()
            let store = try await database.openStore()
            try await StudyAdministration(store: store, actor: .operator, now: Date()).update(id, settings)
            print("Updated study \(id).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List studies.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let store = try await database.openStore()
            let studies = try await store.studies()
            if json {
                var overviews: [JSONValue] = []
                for study in studies {
                    overviews.append(try StudyCommand.overview(study, questionnaires: try await store.latestQuestionnaires(studyId: study.id),
                                                               switches: try await store.studySwitches(studyId: study.id), modules: store.modules))
                }
                return try CommandOutput.json(overviews)
            }
            // A column per installed module switch, after RUNNING.
            let declared = store.modules.studySwitches
            var rows: [[String]] = []
            for study in studies {
                let on = try await store.studySwitches(studyId: study.id)
                rows.append([study.id, study.access.rawValue, study.running ? "yes" : "no"]
                            + declared.map { on.contains($0.key) ? "on" : "off" }
                            + [study.modules.map(\.rawValue).joined(separator: ","), study.title.text(in: "en")])
            }
            CommandOutput.table(["ID", "ACCESS", "RUNNING"] + declared.map { $0.name.uppercased() } + ["MODULES", "TITLE"], rows)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one study as JSON.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var id: String

        func run() async throws {
            let store = try await database.openStore()
            guard let study = try await store.study(id: id) else { throw ValidationError("No study '\(id)'; see 'study list'.") }
            try CommandOutput.json(StudyCommand.overview(study, questionnaires: try await store.latestQuestionnaires(studyId: id),
                                                         switches: try await store.studySwitches(studyId: id), modules: store.modules))
            // Beside the JSON, which stays one document on stdout.
            if let warning = StudyCommand.passwordWarning(study) { FileHandle.standardError.write(Data((warning + "\n").utf8)) }
        }
    }

    struct Modules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the modules a study enables.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var id: String
        @Option(help: ArgumentHelp("Modules to enable, comma-separated (\(StudyRules.knownModuleList)); replaces the current set."))
        var enable: String

        func run() async throws {
            let store = try await database.openStore()
            let ids = enable.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let study = try await StudyAdministration(store: store, actor: .operator, now: Date()).update(id, StudySettings(modules: ids))
            print("Study \(id) enables: \(study.modules.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    struct Consent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a study's consent versions, newest first: when each was published, how many agreed, its text (--json).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var id: String
        @Flag(help: "Print JSON, with each version's text in every language.") var json = false

        /// One version as `--json` prints it.
        struct Row: Encodable {
            var version: Int
            var publishedAt: String
            var agreements: Int
            var text: LocalizedText
        }

        func run() async throws {
            let store = try await database.openStore()
            guard try await store.study(id: id) != nil else { throw ValidationError("No study '\(id)'; see 'study list'.") }
            let versions = try await store.consentVersions(studyId: id)
            if json {
                return try CommandOutput.json(versions.map {
                    Row(version: $0.version, publishedAt: Timestamps.format($0.publishedAt), agreements: $0.agreements, text: $0.text)
                })
            }
            CommandOutput.table(["VERSION", "PUBLISHED", "AGREED", "LANGUAGES"], versions.map {
                [String($0.version), Timestamps.format($0.publishedAt), String($0.agreements), $0.text.values.keys.sorted().joined(separator: ",")]
            })
        }
    }
}

extension StudyCommand {
    /// `study languages ID [--json]`: the study's declared languages and, for each language it is
    /// checked for, the texts its participants read in another language (the console's settings
    /// page shows the same, ``StudyLanguages/gaps(_:texts:)``). Exits 0 either way: a fallback is
    /// a choice the team may make, as long as it is seen.
    struct Languages: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the texts a participant of each language reads in another language.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var id: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let store = try await database.openStore()
            guard let study = try await store.study(id: id) else { throw ValidationError("No study '\(id)'; see 'study list'.") }
            let gaps = StudyLanguages.gaps(study, texts: try await StudyLanguages.texts(of: study, store: store))
            if json {
                return try CommandOutput.json(JSONValue.object([
                    "study": .string(study.id),
                    "languages": study.languages.map { .array($0.map { .string($0) }) } ?? .null,
                    "fallbacks": .object(Dictionary(uniqueKeysWithValues: gaps.map { gap in
                        (gap.language, JSONValue.object(gap.readIn.mapValues { .array($0.map { .string($0) }) }))
                    })),
                ]))
            }
            let declared = study.languages.map { "declares \($0.joined(separator: ", ")); texts fall back to \($0[0]), then en" }
                ?? "declares no languages; texts fall back to en"
            print("Study \(study.id) \(declared).")
            guard !gaps.isEmpty else { return print("Every text is in every language checked (\(StudyLanguages.checkedLanguages(study).joined(separator: ", "))).") }
            for gap in gaps {
                for (other, names) in gap.readIn.sorted(by: { $0.key < $1.key }) {
                    print("\(gap.language): \(names.count) read in \(other): \(names.joined(separator: "; "))")
                }
            }
        }
    }
}

extension StudyAccess: ExpressibleByArgument {}
