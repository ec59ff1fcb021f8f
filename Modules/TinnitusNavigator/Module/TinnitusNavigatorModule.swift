import Foundation
import UNITICore
import UNITIProtocol

/// The TinnitusNavigator feature module (`tn`): the personal health record of the
/// TinnitusNavigator thesis (events, therapies, audiograms, clinical questionnaires with
/// scores; FR1–FR12), with what the thesis left for later (a calendar, therapy-end reminders,
/// completed questionnaires marked) and beyond it a FHIR R4 export and a report for the
/// doctor. Every entry is a synced record, so the record follows the person to every device.
/// See the module README.
public struct TinnitusNavigatorModule: UNITIModule {
    public init() {}

    public let descriptor = ModuleDescriptor(.tn, version: "0.2.0")

    public func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        TNCommands.all(for: program)
    }

    public var migrations: [ModuleMigration] { TNMigrations.all }
}

extension TinnitusNavigatorModule: RecordSyncing {
    public var syncedRecordTypes: [any SyncedRecord.Type] {
        [HealthEvent.self, Therapy.self, Audiogram.self, CompletedQuestionnaire.self]
    }
}

extension TinnitusNavigatorModule: StartScreenOffering {
    /// The standalone program needs an account (thesis FR1, FR2): the record lives on the
    /// server too, so there is no guest use; after login the whole record is downloaded.
    public func startScreen(in program: ProgramKind) -> StartScreenChoices? {
        program == .standalone ? .accountOnly : nil
    }
}

extension TinnitusNavigatorModule: ReminderProviding {
    /// Therapy-end reminders and the reminder to keep the record up to date (outlook).
    public func reminderSource(_ context: ModuleContext) throws -> ReminderSource {
        try RecordReminders(context: context).source()
    }
}
