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

    /// `questionnaire update ID --study S [--completion-window MINUTES] [--late-answers MINUTES]`:
    /// a new version of the newest definition with the completion window and the late-answer
    /// allowance set (devices take it at their next sync); sheets of older versions stay valid.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set how long after a prompt an answer begun counts as in time, and how much later still as late: stored as a new version of the questionnaire.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Questionnaire id.") var id: String
        @OptionGroup var study: StudyOption
        @Option(name: .customLong("completion-window"), help: "Minutes, 1 to 1440.") var completionWindow: Int?
        @Option(name: .customLong("late-answers"),
                help: "Minutes after the window in which an answer begun is still a late answer to the prompt, 0 to 1440 (new questionnaires: 0, so an answer begun after the window is the participant's own).")
        var lateAnswers: Int?

        func validate() throws {
            guard completionWindow != nil || lateAnswers != nil else { throw ValidationError("Give --completion-window, --late-answers or both.") }
            if let completionWindow, !PromptTiming.completionWindowRange.contains(completionWindow) {
                throw ValidationError("--completion-window \(completionWindow) is not a window; give 1 to 1440 minutes.")
            }
            if let lateAnswers, !PromptTiming.lateAnswerRange.contains(lateAnswers) {
                throw ValidationError("--late-answers \(lateAnswers) is not an allowance; give 0 to 1440 minutes.")
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
            let window = document.definition.completionWindowMinutes ?? PromptTiming.defaultCompletionWindowMinutes
            let late = document.definition.lateAnswerMinutes ?? 0
            let settings = "a completion window of \(window) minutes and late answers for \(late) minutes after it"
            guard document.definition.completionWindowMinutes != before.definition.completionWindowMinutes
                    || document.definition.lateAnswerMinutes != before.definition.lateAnswerMinutes else {
                await store.close()
                return print("\(id) version \(before.version) already has \(settings).")
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
