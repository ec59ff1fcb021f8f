import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tyh fill`: the hearing questionnaire, one question at a time with progress and no way
/// back (thesis FR5, 5.2.1). Nothing is sent half answered: stopping keeps a draft, and the
/// next `fill` continues where it stopped (NFR4). A sheet that follows a reminder within an
/// hour carries it, and after the sheet the rewards the server counted are shown briefly.
struct FillCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "fill", abstract: L("tyh.fill.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tyh.fill.id"), valueName: "ID")) var id: String?

    init() {}

    func run(in context: ModuleContext) throws {
        let status = try HearingQuestionnaire.current(context, id: id)
        let engine = QuestionnaireEngine(services: context.services)
        engine.remindedAt = try HearingReminders(context: context).promptingReminder()
            .map { OffsetTimestamp($0, in: context.clock.timeZone) }
        let result = try context.studyQuestionnaires.fill(status, with: engine)
        let id = String(result.sheet.id.uuidString.lowercased().prefix(8))
        guard !status.questionnaire.isBundled else {
            context.console.line(L("tyh.fill.savedOnDevice", ["id": id]))
            return
        }
        context.console.line(L("tyh.fill.saved", ["id": id]))
        RewardsCommand.afterSheet(context)
    }
}
