import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tn completed [list]` and `tn completed show ID`: the completed questionnaires of the health
/// record, newest first, and one of them read-only, every answer as the person saw it, with its
/// scores. There is no command to change one: completed questionnaires are locked.
struct CompletedCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "completed", abstract: L("tn.questionnaires.completed.abstract"),
                             subcommands: [List.self, Show.self], defaultSubcommand: List.self)
    }

    init() {}

    func run(in context: ModuleContext) throws {
        try List.list(context, json: context.prefersJSON)
    }

    struct List: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: L("tn.questionnaires.completed.list.abstract"))
        }

        @OptionGroup var output: JSONOutput

        init() {}

        func run(in context: ModuleContext) throws {
            try Self.list(context, json: output.isRequested(in: context))
        }

        static func list(_ context: ModuleContext, json: Bool) throws {
            let questionnaires = ClinicalQuestionnaires(context: context)
            let uploads = try questionnaires.uploads()
            let views = try questionnaires.completions().map { try CompletedView($0, upload: uploads[$0.id], questionnaires: questionnaires) }
            if json {
                try context.console.json(views)
                return
            }
            guard !views.isEmpty else {
                context.console.line(L("tn.questionnaires.completed.none"))
                return
            }
            context.console.table(TextTable(columns: [.left, .left, .left, .left], header: [
                L("tn.questionnaires.completed.column.id"), L("tn.questionnaires.completed.column.date"), L("tn.questionnaires.completed.column.questionnaire"),
                L("tn.questionnaires.completed.column.scores"), L("tn.questionnaires.completed.column.upload"),
            ], rows: views.map { view in
                [HealthRecordID.short(view.id), view.date, view.title, view.scores.joined(separator: "; "), view.uploadShortText]
            }))
            context.console.line(L("tn.questionnaires.completed.hint"))
        }
    }

    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("tn.questionnaires.completed.show.abstract"))
        }

        @Argument(help: ArgumentHelp(L("tn.questionnaires.completed.id"), valueName: "ID")) var id: String
        @OptionGroup var output: JSONOutput

        init() {}

        func run(in context: ModuleContext) throws {
            let questionnaires = ClinicalQuestionnaires(context: context)
            let completed = try questionnaires.store.find(CompletedQuestionnaire.self, id, noun: L("tn.questionnaires.completed.noun"))
            let view = try CompletedView(completed, upload: try questionnaires.uploads()[completed.id], questionnaires: questionnaires)
            if output.isRequested(in: context) {
                try context.console.json(view)
                return
            }
            context.console.line("\(view.title) (\(view.questionnaire) v\(view.version))")
            context.console.line(L("tn.questionnaires.completed.header", ["date": view.date, "id": view.id]))
            context.console.line(L("tn.questionnaires.completed.upload", ["state": view.uploadText]))
            context.console.table(TextTable(columns: [.init(maximumWidth: 48), .left],
                                            rows: view.answers.map { [$0.question, $0.answer] }))
            for line in view.scores { context.console.line(line) }
        }
    }
}

/// A completed questionnaire in the words the person saw.
struct CompletedView: Encodable {
    struct Answer: Encodable {
        let label: String
        let question: String
        let answer: String
    }

    let id: String
    let questionnaire: String
    let version: Int
    let title: String
    /// The local day it was completed.
    let date: String
    let completedAt: String
    let answers: [Answer]
    let scores: [String]
    /// Whether its sheet reached the study server (``SheetUpload``): `uploaded`, `waiting`,
    /// `refused`, `deviceOnly` or `erasedFromServer`.
    let upload: String
    let waitingFor: String?
    let refusedBecause: String?
    /// The upload state in the person's words, whole and for a table (not in `--json`).
    let uploadText: String
    let uploadShortText: String

    enum CodingKeys: String, CodingKey {
        case id, questionnaire, version, title, date, completedAt, answers, scores, upload, waitingFor, refusedBecause
    }

    /// `upload` is nil for a record whose sheet is not kept here (none of this module's
    /// questionnaires any more): it stays on this device.
    init(_ completed: CompletedQuestionnaire, upload stored: SheetUpload?, questionnaires: ClinicalQuestionnaires) throws {
        let state = stored ?? .deviceOnly
        upload = state.state
        waitingFor = state.waitingFor
        refusedBecause = state.refusedBecause
        uploadText = state.text
        uploadShortText = state.shortText
        let text = QuestionnaireText(localizer: questionnaires.context.localizer)
        let timeZone = questionnaires.context.clock.timeZone
        let definition = try questionnaires.definition(of: completed)
        id = completed.id
        questionnaire = completed.questionnaireID
        version = completed.version
        title = definition.map { text.text($0.title) } ?? completed.questionnaireID
        date = "\(LocalDate(completed.completedAt, in: timeZone))"
        completedAt = OffsetTimestamp(completed.completedAt, in: timeZone).text
        let sheet = completed.sheet
        var answers: [Answer] = []
        var shown = Set<String>()
        for item in definition?.items ?? [] where item.element.isQuestion {
            if case .unsupported = item.element {
                answers.append(Answer(label: item.label, question: text.text(item.text), answer: L("tn.questionnaires.completed.unsupported")))
                continue
            }
            guard let answer = sheet.answers[item.label] else { continue }
            shown.insert(item.label)
            answers.append(Answer(label: item.label, question: text.text(item.text),
                                  answer: text.describe(answer.value, for: item, withCodes: false)))
        }
        // Answers to items the known definition lacks still show, by label.
        for (label, answer) in sheet.answers.sorted(by: { $0.key < $1.key }) where !shown.contains(label) {
            answers.append(Answer(label: label, question: label, answer: "\(answer.value)"))
        }
        self.answers = answers
        scores = definition.map { ScoreLines.lines(QuestionnaireScorer.scores(for: $0, answers: sheet.values), definition: $0, text: text) } ?? []
    }
}
