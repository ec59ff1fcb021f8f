import Foundation
import UNITICore
import UNITIProtocol

/// The TrackYourHearing feature module (`tyh`): the hearing questionnaire one question at a
/// time (thesis FR5), reminders within the person's limits (FR6, FR7), statistics (FR8), and
/// the rewards the thesis planned but did not build (FR11), computed by the study server. See
/// the string table key `tyh.about` and the module README.
public struct TrackYourHearingModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.tyh, version: "0.2.0")

    /// In `track-your-hearing` the reminder commands are `planner`, beside the shell's own
    /// `reminders` (every module's reminders and the daemon).
    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        let common: [any ShellCommand.Type] = [FillCommand.self, StatsCommand.self, RewardsCommand.self]
        switch program {
        case .integrated: return common + [RemindersCommand.self, AboutCommand.self]
        case .standalone: return common + [PlannerCommand.self, AboutCommand.self]
        }
    }

    public var migrations: [ModuleMigration] { [] }
}

extension TrackYourHearingModule: StartScreenOffering {
    /// The standalone program needs an account (thesis FR1): log in, register or forgot
    /// password, no guest. Integrated, the host owns accounts.
    public func startScreen(in program: ProgramKind) -> StartScreenChoices? {
        program == .standalone ? .accountOnly : nil
    }
}

extension TrackYourHearingModule: ReminderProviding {
    /// The hearing reminders: random times inside each enabled weekday's window, as many a day
    /// as the person allows (FR6, FR7). Every reminder asks again (momentary assessment).
    public func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
        try HearingReminders(context: context).source()
    }
}
