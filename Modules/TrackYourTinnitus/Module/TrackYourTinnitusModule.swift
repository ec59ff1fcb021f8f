import Foundation
import UNITICore

/// The TrackYourTinnitus feature module (`tyt`): momentary tinnitus check-ins at reminder times,
/// their charts, reminders with their tone, the ambient noise level, baseline questionnaires and
/// feedback. See the string table key `tyt.about` and the module README.
public struct TrackYourTinnitusModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(
        id: "tyt",
        name: "TrackYourTinnitus",
        programName: "track-your-tinnitus",
        version: "0.1.0"
    )

    public var commands: [any ShellCommand.Type] {
        [FillCommand.self, ResultsCommand.self, NotifyCommand.self, RingtoneCommand.self, SettingsCommand.self,
         BaselineCommand.self, FeedbackCommand.self, AboutCommand.self]
    }

    public var migrations: [ModuleMigration] { TinnitusMigrations.all }

    /// A due reminder opens the questionnaire directly (thesis FR2). Otherwise, on a terminal,
    /// one line says when baseline questionnaires are still open (FR8).
    public func didEnter(_ context: ModuleContext) throws {
        guard try DueCheckIn.isDue(context, source: reminderSource(context), module: descriptor) else {
            if context.input.isInteractive {
                let open = try BaselineQuestionnaires.baseline(context.services).open(in: context.services)
                if !open.isEmpty { context.console.line(L("tyt.baseline.open", ["count": String(open.count)])) }
            }
            return
        }
        context.console.line(L("tyt.fill.due"))
        try FillCommand.checkIn(context)
    }

    /// The standalone program opens with log in, register, forgot password or continue without
    /// an account (thesis FR1, FR7), like the thesis app's first screen.
    public var offersGuestStart: Bool { !TinnitusBuild.isIntegrated }

    /// The check-in reminders with the chosen tone; answered periods are not skipped (see
    /// ``ReminderPlan/rule(tone:)`` for why).
    public func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
        let plan = try ReminderPlan.load(context)
        guard let rule = try plan.rule(tone: RingtoneCommand.chosen(context)) else { return .none }
        let results = ResultStore(database: context.database)
        return ReminderSource(rules: [rule]) { _, period in try results.hasResult(in: period) }
    }

    /// The chosen ringtone (thesis FR4), rendered when a reminder falls due.
    public func reminderTone(named name: String) -> ReminderTone? {
        guard let tone = Ringtone.named(name) else { return nil }
        let synthesizer = RingtoneSynthesizer()
        return ReminderTone(format: synthesizer.format, samples: synthesizer.render(tone))
    }
}
