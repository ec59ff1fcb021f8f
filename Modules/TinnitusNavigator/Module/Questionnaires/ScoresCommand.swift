import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tn scores [ID] [--json]`: every score and grade of the completed questionnaires over time
/// (TinnitusNavigator thesis 2.3), oldest first; a questionnaire completed at least twice also
/// gets a small chart of its total.
struct ScoresCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "scores", abstract: L("tn.scores.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tn.scores.id"), valueName: "ID")) var id: String?
    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        let questionnaires = ClinicalQuestionnaires(context: context)
        // An unknown id is one line naming the known ones, not an empty table (a questionnaire
        // completed under a study left since still has its scores).
        if let id, try questionnaires.completions(of: id).isEmpty { _ = try questionnaires.service.status(of: id) }
        let history = try ScoreHistory(questionnaires, questionnaireID: id)
        if output.isRequested(in: context) {
            try context.console.json(history.rows)
            return
        }
        guard !history.rows.isEmpty else {
            context.console.line(L("tn.scores.none"))
            return
        }
        context.console.table(TextTable(columns: [.left, .left, .left, .right, .left], header: [
            L("tn.scores.column.date"), L("tn.scores.column.questionnaire"), L("tn.scores.column.score"),
            L("tn.scores.column.value"), L("tn.scores.column.grade"),
        ], rows: history.rows.map { row in
            [row.date, row.title, row.scoreTitle, row.value.map { AnswerValue.number($0).description } ?? "—", row.gradeTitle ?? "—"]
        }))
        let width = min(context.console.width, 72)
        for questionnaire in history.chartable {
            context.console.line()
            for line in try history.chart(of: questionnaire, width: width, timeZone: context.clock.timeZone) {
                context.console.line(line)
            }
        }
    }
}
