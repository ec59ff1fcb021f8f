import Foundation
import UNITICore
import UNITIProtocol

/// The TrackYourStress feature module (`tys`): the questionnaires that the person's studies
/// define (one-time ones first, then daily, weekly or monthly ones on their schedule), filled
/// through the core engine with the sensors the study asks for, the person's sheets, results
/// with the comparison with all participants, and reminders that follow each schedule. See the
/// string table key `tys.about` and the module README.
///
/// The questionnaires themselves are the core's study-questionnaire service
/// (``StudyQuestionnaires``); this module presents those whose study gives them to `tys`.
public struct TrackYourStressModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.tys, version: "0.2.0")

    /// In `track-your-stress` the module's commands stand beside the shell's, whose `reminders`
    /// (every reminder, the daemon) and `sensors` (the same permissions) keep their names: the
    /// reminder planner is `planner` there, and the shell's `sensors` sets the permissions.
    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        let common: [any ShellCommand.Type] = [QuestionnairesCommand.self, FillCommand.self, SheetsCommand.self,
                                               SheetCommand.self, ResultsCommand.self]
        switch program {
        case .integrated: return common + [RemindersCommand.self, StressSensorsCommand.self, AboutModuleCommand.self]
        case .standalone: return common + [PlannerCommand.self, AboutModuleCommand.self]
        }
    }

    public var migrations: [ModuleMigration] { [] }
}

extension TrackYourStressModule: StartScreenOffering {
    /// The standalone program opens with log in, register or forgot password; there is no guest
    /// use, because the thesis's app needs an account (FR1–FR3). The integrated program leaves
    /// accounts to the host.
    public func startScreen(in program: ProgramKind) -> StartScreenChoices? {
        program == .standalone ? .accountOnly : nil
    }
}

extension TrackYourStressModule: ModuleEntering {
    /// On entering, one line names the questionnaire that is due, if any.
    public func didEnter(_ context: ModuleContext) throws {
        guard let next = try context.studyQuestionnaires.next() else { return }
        let title = QuestionnaireText(localizer: context.localizer).text(next.questionnaire.definition.title)
        context.console.line(L("tys.enter.due", ["title": title, "id": next.id]))
    }
}

extension TrackYourStressModule: ReminderProviding {
    /// One rule per repeating questionnaire that runs, following its schedule and the person's
    /// choices (``StressReminders``).
    public func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
        try StressReminders(context: context).source()
    }
}
