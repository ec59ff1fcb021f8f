import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server questionnaire import|list|deactivate|activate`: the coordinator stores
/// questionnaire versions for a study, says which module presents each, and stops or resumes
/// taking answers to one.
struct QuestionnaireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "questionnaire", abstract: "Import, list, deactivate and activate a study's questionnaires.",
        subcommands: [Import.self, Update.self, List.self, Deactivate.self, Activate.self])

    /// `--study S`, checked to name a study, shared by every subcommand.
    struct StudyOption: ParsableArguments {
        @Option(help: "Study the questionnaire belongs to.") var study: String

        func existingStudy(in store: ServerStore) async throws -> String {
            guard try await store.study(id: study) != nil else { throw ValidationError("No study '\(study)'; see 'study list'.") }
            return study
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a questionnaire definition (JSON, core format). A changed definition needs a higher version; older versions stay.",
            discussion: """
                The questionnaire is presented by --module. Without it, a questionnaire keeps the module it has; a new one \
                whose id is bundled with the program stays with the module that bundles it (the id's prefix, e.g. \
                tyt-momentary: tyt; else the shell, uniti), any other is presented by \(ServerModules.installed.studyQuestionnaireModule).
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Definition file (JSON).") var file: String
        @OptionGroup var study: StudyOption
        @Option(help: ArgumentHelp("Module that presents it: \(StudyRules.knownModuleList)."))
        var module: String?

        func run() async throws {
            let store = try await database.openStore()
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw ValidationError("Cannot read '\(file)'.")
            }
            let (document, result) = try await StudyAdministration(store: store, actor: .operator, now: Date())
                .importQuestionnaire(data, into: study.study, module: module)
            let studyId = document.studyId
            let stored = result.versionAdded ? "Imported \(document.id) version \(document.version) into study \(studyId)"
                                             : "\(document.id) version \(document.version) is already stored unchanged"
            var presented = "presented by \(result.module)"
            if let previous = result.previousModule, previous != result.module {
                presented = "now presented by \(result.module) (was \(previous))"
            }
            print("\(stored); \(presented).")
        }
    }

    /// `questionnaire update ID --study S [--completion-window MINUTES] [--late-answers MINUTES]
    /// [--window DAYS=HH:MM-HH:MM ...] [--prompts N] [--gap MINUTES] [--shift MINUTES]
    /// [--start-on-day N] [--end-on-day N]`: a new version of the newest definition with the
    /// prompt timing and the schedule's windows changed (devices take it at their next sync and
    /// plan by it); sheets of older versions stay valid. The validator the console and the upload
    /// use checks the result (a gap shorter than the completion window, prompts that do not fit a
    /// window) before anything is stored.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set when prompts may come (windows per weekday, prompts a day, the gap between them, how far participants may move their window, first and last day) and how long answers count: stored as a new version of the questionnaire.",
            discussion: "Windows are given per weekday, e.g. --window mon-fri=08:00-22:00 --window sat,sun=10:00-22:00; days without a window get no prompts, and --window standard goes back to 08:00-22:00 every day. Days are counted after joining (0 = the day of joining).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Questionnaire id.") var id: String
        @OptionGroup var study: StudyOption
        @Option(name: .customLong("completion-window"), help: "Minutes, 1 to 1440.") var completionWindow: Int?
        @Option(name: .customLong("late-answers"),
                help: "Minutes after the window in which an answer begun is still a late answer to the prompt, 0 to 1440 (new questionnaires: 0, so an answer begun after the window is the participant's own).")
        var lateAnswers: Int?
        @Option(name: .customLong("window"), help: "DAYS=HH:MM-HH:MM, e.g. mon-fri=08:00-22:00; repeat for other days, or 'standard'.")
        var windows: [String] = []
        @Option(name: .customLong("prompts"), help: "Prompts a day (the schedule's amount), at least 1.") var prompts: Int?
        @Option(name: .customLong("gap"), help: "Least minutes between two prompts of a day, at least the completion window.") var gap: Int?
        @Option(name: .customLong("shift"), help: "Minutes a participant may move a window's start or end, 0 to 720 (where they may change reminders).")
        var shift: Int?
        @Option(name: .customLong("start-on-day"), help: "The first day with prompts, counted after joining (0 = the day of joining).") var startOnDay: Int?
        @Option(name: .customLong("end-on-day"), help: "The last day with prompts, counted after joining.") var endOnDay: Int?

        var changesSchedule: Bool { !windows.isEmpty || prompts != nil || gap != nil || shift != nil || startOnDay != nil || endOnDay != nil }

        func validate() throws {
            guard completionWindow != nil || lateAnswers != nil || changesSchedule else {
                throw ValidationError("Give at least one of --completion-window, --late-answers, --window, --prompts, --gap, --shift, --start-on-day, --end-on-day.")
            }
            if let completionWindow, !PromptTiming.completionWindowRange.contains(completionWindow) {
                throw ValidationError("--completion-window \(completionWindow) is not a window; give 1 to 1440 minutes.")
            }
            if let lateAnswers, !PromptTiming.lateAnswerRange.contains(lateAnswers) {
                throw ValidationError("--late-answers \(lateAnswers) is not an allowance; give 0 to 1440 minutes.")
            }
            _ = try parsedWindows()
        }

        /// The windows given, nil for none given or `standard`.
        func parsedWindows() throws -> [PromptWindow]? {
            guard !windows.isEmpty, windows != ["standard"] else { return nil }
            return try windows.map { text in
                guard let window = PromptWindow(parsing: text) else {
                    throw ValidationError("--window \(text) is not a window; give days and times as mon-fri=08:00-22:00 (days mon … sun, times HH:MM, the end after the start), or 'standard'.")
                }
                return window
            }
        }

        func run() async throws {
            let store = try await database.openStore()
            let studyId = try await study.existingStudy(in: store)
            guard let before = try await store.latestQuestionnaires(studyId: studyId).first(where: { $0.id == id }) else {
                await store.close()
                throw ValidationError("Study '\(studyId)' has no questionnaire '\(id)'; see 'questionnaire list --study \(studyId)'.")
            }
            var document = before.nextVersion()
            if let completionWindow { document.definition.completionWindowMinutes = completionWindow }
            if let lateAnswers { document.definition.lateAnswerMinutes = lateAnswers }
            if changesSchedule {
                guard var schedule = document.definition.schedule else {
                    await store.close()
                    throw ValidationError("\(id) has no schedule (it is answered once, when the participant chooses); windows, prompts and gaps are for repeating questionnaires.")
                }
                if !windows.isEmpty { schedule.windows = try parsedWindows() }
                if let prompts { schedule.amount = prompts }
                if let gap { schedule.minimumGapMinutes = gap }
                if let shift { schedule.windowShiftMinutes = shift }
                if let startOnDay { schedule.startOnDay = startOnDay }
                if let endOnDay { schedule.endOnDay = endOnDay }
                document.definition.schedule = schedule
            }
            let settings = Self.describe(document.definition)
            guard !AuditValues.settingChanges(before.definition, document.definition).isEmpty else {
                await store.close()
                return print("\(id) version \(before.version) already has \(settings).")
            }
            let problems = QuestionnaireValidator.validate(document.definition)
            guard problems.isEmpty else {
                await store.close()
                throw ValidationError("Nothing was stored: " + problems.map(\.description).joined(separator: "; "))
            }
            do {
                _ = try await StudyAdministration(store: store, actor: .operator, now: Date()).updateQuestionnaire(document, from: before)
            } catch let error as APIError {
                await store.close()
                throw ValidationError(error.message)
            }
            await store.close()
            print("Stored \(id) version \(document.version) in study \(studyId) with \(settings).")
        }

        /// The timing in one line: the window and late answers, and a daily schedule's windows, prompts and gap.
        static func describe(_ definition: QuestionnaireDefinition) -> String {
            let window = definition.completionWindowMinutes ?? PromptTiming.defaultCompletionWindowMinutes
            var text = "a completion window of \(window) minutes and late answers for \(definition.lateAnswerMinutes ?? 0) minutes after it"
            guard let schedule = definition.schedule, schedule.frequency == .daily else { return text }
            let windows = schedule.windows.map { $0.map(\.description).joined(separator: " ") } ?? "08:00-22:00 every day"
            text += "; \(schedule.amount ?? 1) prompt(s) a day at least \(schedule.gap(completionWindowMinutes: window)) minutes apart in \(windows)"
            if let shift = schedule.windowShiftMinutes { text += ", movable by \(shift) minutes" }
            if let first = schedule.startOnDay { text += ", from day \(first)" }
            if let last = schedule.endOnDay { text += " until day \(last)" }
            return text
        }
    }

    /// One line of `questionnaire list`.
    struct Row: Codable {
        var id: String
        var version: Int
        var module: String
        var active: Bool
        var deactivatedAt: String?
        var kind: String
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a study's questionnaires in import order: newest version, module, active or deactivated, kind.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var study: StudyOption
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let store = try await database.openStore()
            let rows = try await Self.rows(store, studyId: try await study.existingStudy(in: store))
            if json { return try CommandOutput.json(rows) }
            for line in Self.tableLines(rows) { print(line) }
        }

        /// The study's questionnaires in import order.
        static func rows(_ store: ServerStore, studyId: String) async throws -> [Row] {
            let newest = Dictionary(uniqueKeysWithValues: try await store.latestQuestionnaires(studyId: studyId).map { ($0.id, $0) })
            return try await store.questionnaireLinks(studyId: studyId).compactMap { link -> Row? in
                guard let document = newest[link.questionnaireId] else { return nil }
                return Row(id: link.questionnaireId, version: document.version, module: link.module.rawValue, active: link.isActive,
                           deactivatedAt: link.deactivatedAt.map(Timestamps.format), kind: document.definition.kind.rawValue)
            }
        }

        static func tableLines(_ rows: [Row]) -> [String] {
            CommandOutput.tableLines(["ID", "VERSION", "MODULE", "STATUS", "KIND"], rows.map {
                [$0.id, String($0.version), $0.module, $0.deactivatedAt.map { "deactivated \($0)" } ?? "active", $0.kind]
            })
        }
    }

    /// Deactivates or activates; refuses an id the study does not have.
    static func setActive(_ active: Bool, id: String, study: StudyOption, database: DatabaseOptions) async throws {
        let store = try await database.openStore()
        let studyId = try await study.existingStudy(in: store)
        guard let change = try await StudyAdministration(store: store, actor: .operator, now: Date())
            .setQuestionnaireActive(id: id, studyId: studyId, active: active) else {
            throw ValidationError("Study '\(studyId)' has no questionnaire '\(id)'; see 'questionnaire list --study \(studyId)'.")
        }
        switch (change.before, change.after) {
        case (nil, nil): print("\(id) in study \(studyId) is already active.")
        case (_?, nil): print("Activated \(id) in study \(studyId); its sheets are accepted again.")
        case (nil, let since?): print("Deactivated \(id) in study \(studyId) on \(Timestamps.format(since)); sheets started from then on are refused.")
        case (_?, let since?): print("\(id) in study \(studyId) is already deactivated, since \(Timestamps.format(since)).")
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop taking answers to a questionnaire: devices show it as deactivated; sheets started before still count.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Questionnaire id.") var id: String
        @OptionGroup var study: StudyOption
        func run() async throws { try await setActive(false, id: id, study: study, database: database) }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take answers to a deactivated questionnaire again.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Questionnaire id.") var id: String
        @OptionGroup var study: StudyOption
        func run() async throws { try await setActive(true, id: id, study: study, database: database) }
    }
}
