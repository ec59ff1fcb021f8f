import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// The TrackYourTinnitus feature module (`tyt`): momentary tinnitus check-ins at reminder times,
/// their charts, reminders with their tone, the ambient noise level, baseline questionnaires and
/// feedback. See the string table key `tyt.about` and the module README.
public struct TrackYourTinnitusModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.tyt, version: "0.2.0")

    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        [FillCommand.self, ResultsCommand.self, NotifyCommand.self, RingtoneCommand.self, SettingsCommand.self,
         BaselineCommand.self, FeedbackCommand.self, AboutCommand.self]
    }

    public var migrations: [ModuleMigration] { TinnitusMigrations.all }
}

extension TrackYourTinnitusModule: ModuleEntering {
    /// A due reminder opens the questionnaire directly (thesis FR2). Otherwise, on a terminal,
    /// one line says when baseline questionnaires are still open (FR8).
    public func didEnter(_ context: ModuleContext) throws {
        guard try DueCheckIn.isDue(context, source: reminderSource(context), module: descriptor) else {
            if context.input.isInteractive {
                let open = try BaselineQuestionnaires.baseline(context).open(in: context.services)
                if !open.isEmpty { context.console.line(L("tyt.baseline.open", count: open.count)) }
            }
            return
        }
        context.console.line(L("tyt.fill.due"))
        try FillCommand.checkIn(context)
    }
}

extension TrackYourTinnitusModule: StartScreenOffering {
    /// The standalone program opens with log in, register, forgot password or continue without
    /// an account (thesis FR1, FR7), like the thesis app's first screen.
    public func startScreen(in program: ProgramKind) -> StartScreenChoices? {
        program == .standalone ? .accountOrGuest : nil
    }
}

extension TrackYourTinnitusModule: ReminderProviding, ReminderToneProviding {
    /// The check-in reminders with the chosen tone, by the study's schedule where it sets one
    /// (``ReminderPlan/studySchedule(_:)``); answered periods are not skipped (see
    /// ``ReminderPlan/rule(tone:)`` for why).
    public func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
        let plan = try ReminderPlan.load(context), tone = try RingtoneCommand.chosen(context)
        let chosen = try ReminderPlan.studySchedule(context).map { try plan.rule(under: $0, tone: tone, timeZone: context.clock.timeZone) }
            ?? plan.rule(tone: tone)
        guard let rule = chosen else { return .none }
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

extension TrackYourTinnitusModule: RecordSyncing {
    public var syncedRecordTypes: [any SyncedRecord.Type] { [Feedback.self] }
}

extension TrackYourTinnitusModule: PulledSheetKeeping {
    /// Check-ins from the person's other devices become results here, so `tyt results` shows
    /// every device's answers; other sheets (the standalone baseline) go to the core's store.
    public func keepPulledSheet(_ sheet: AnswerSheet, in db: Database) throws -> Bool {
        guard sheet.questionnaireID == MomentaryQuestionnaire.id, !sheet.isPartial else { return false }
        guard let result = MomentaryResult(sheet: sheet) else { return false }
        try ResultStore.keep(result, in: db)
        return true
    }
}
