import ArgumentParser
import Foundation
import UNITICore

/// `tys fill [ID]`: answers a study questionnaire through the core engine (thesis FR12–FR15).
/// Without an id, the first one offered by the ordering rule (one-time before repeating); a
/// questionnaire that cannot be answered now is refused in one line that says why.
struct FillCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "fill", abstract: L("tys.fill.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tys.fill.id"), valueName: "ID")) var id: String?

    init() {}

    func run(in context: ModuleContext) throws {
        let service = context.studyQuestionnaires
        let status: StudyQuestionnaireStatus
        if let id {
            status = try service.status(of: id)
        } else {
            guard let next = try service.next() else {
                context.console.line(L("tys.fill.nothingDue"))
                return
            }
            status = next
        }
        let result = try service.fill(status, with: QuestionnaireEngine(services: context.services))
        let location = result.sheet.sensors?.location
        let sheetID = String(result.sheet.id.uuidString.lowercased().prefix(8))
        context.console.line(L(status.questionnaire.isBundled ? "tys.fill.savedOnDevice" : "tys.fill.saved", ["id": sheetID]))
        if let location {
            context.console.line(L("tys.fill.location", [
                "latitude": context.localizer.language.number(location.latitude, fractionDigits: 5),
                "longitude": context.localizer.language.number(location.longitude, fractionDigits: 5),
            ]))
        }
        if let next = try service.next(), next.id != status.id {
            let title = QuestionnaireText(localizer: context.localizer).text(next.questionnaire.definition.title)
            context.console.line(L("tys.fill.next", ["title": title, "id": next.id]))
        }
    }
}
