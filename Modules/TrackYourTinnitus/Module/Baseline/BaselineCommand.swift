import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tyt baseline`: answers the baseline questionnaires still open, in order. Each answer is kept
/// as a draft while answering; when the person stops, the partial sheet is stored and queued for
/// sync (so another device can show where they stopped), and the next run offers to resume.
struct BaselineCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "baseline", abstract: L("tyt.baseline.abstract"))
    }

    @Flag(name: .long, help: ArgumentHelp(L("tyt.baseline.again"))) var again = false

    init() {}

    func run(in context: ModuleContext) throws {
        try Self.answer(BaselineQuestionnaires.ids, again: again, in: context)
    }

    /// Answers the questionnaires `ids` that are not finished yet (all of them with `again`).
    static func answer(_ ids: [String], again: Bool, in context: ModuleContext) throws {
        let owner = context.module?.id ?? "tyt"
        let sheets = context.answerSheets
        var answeredAny = false
        for id in ids {
            let done = try sheets.sheets(owner: owner, questionnaireID: id).contains { !$0.isPartial }
            if done && !again { continue }
            let definition = try ServerQuestionnaires(database: context.database).newest(id: id)
                .flatMap { server in (try? QuestionnaireLoader.bundled(id)).map { server.version > $0.version ? server : $0 } }
                ?? QuestionnaireLoader.bundled(id)
            let engine = context.questionnaires
            do {
                let result = try engine.answer(definition, owner: owner)
                try context.database.writer.write { db in
                    try sheets.save(result.sheet, owner: owner, in: db)
                    try SheetOutbox.enqueue(db, moduleID: owner, sheet: result.sheet, at: context.clock.now)
                }
                answeredAny = true
            } catch let cancel as PromptCancelled {
                if let partial = try engine.partialSheet(owner: owner, questionnaireID: id) {
                    try context.database.writer.write { db in
                        try sheets.save(partial, owner: owner, in: db)
                        try SheetOutbox.enqueue(db, moduleID: owner, sheet: partial, at: context.clock.now)
                    }
                }
                throw cancel
            }
        }
        context.console.line(L(answeredAny ? "tyt.baseline.done" : "tyt.baseline.nothing"))
        if let symptom = try WorstSymptom.chosen(in: sheets, owner: owner) {
            context.console.line(L("tyt.baseline.symptom", ["symptom": symptom.phrase(in: context.localizer.language.rawValue)]))
        }
    }
}
