import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tn fill [ID]`: fills out a clinical questionnaire through the core engine (TinnitusNavigator
/// thesis FR8): saved only when every question is answered, then locked as completed, and its
/// scores shown. Without an id, the first one open in the offering order; a completed one is
/// refused in one line.
struct FillCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "fill", abstract: L("tn.fill.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tn.fill.id"), valueName: "ID")) var id: String?

    init() {}

    func run(in context: ModuleContext) throws {
        let questionnaires = ClinicalQuestionnaires(context: context)
        guard let (entry, result) = try questionnaires.fill(id, with: QuestionnaireEngine(services: context.services)) else {
            context.console.line(L("tn.fill.nothingDue"))
            return
        }
        let completed = CompletedQuestionnaire(sheet: result.sheet)
        context.console.line(L("tn.fill.saved", [
            "date": "\(LocalDate(completed.completedAt, in: context.clock.timeZone))", "id": HealthRecordID.short(completed.id),
        ]))
        let text = QuestionnaireText(localizer: context.localizer)
        for line in ScoreLines.lines(result.scores, definition: entry.definition, text: text) {
            context.console.line("  " + line)
        }
        if let next = try questionnaires.service.next(), next.id != entry.id {
            context.console.line(L("tn.fill.next", ["title": text.text(next.questionnaire.definition.title), "id": next.id]))
        }
    }
}

/// A sheet's scores as lines: "Total distress: 15 (severe)".
enum ScoreLines {
    static func lines(_ scores: [ScoreResult], definition: QuestionnaireDefinition, text: QuestionnaireText) -> [String] {
        zip(definition.scoring?.scores ?? [], scores).map { rule, result in
            let title = rule.title.map(text.text) ?? rule.id
            guard let value = result.value else { return L("tn.scores.noValue", ["score": title]) }
            let number = AnswerValue.number(value).description
            guard let grade = result.grade else { return L("tn.scores.line", ["score": title, "value": number]) }
            let band = rule.bands.first { $0.grade == grade }
            return L("tn.scores.lineGraded", ["score": title, "value": number, "grade": band?.title.map(text.text) ?? grade])
        }
    }
}
