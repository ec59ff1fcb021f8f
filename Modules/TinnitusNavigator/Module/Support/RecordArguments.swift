import UNITICore

/// A command that takes one entry of the record by id (`tn audiogram show ID`, `--compare ID`):
/// Tab offers the entries' short ids, as the lists show them.
protocol RecordEntryArgument: ArgumentValuesOffering {
    associatedtype Entry: SyncedTableRecord
}

extension RecordEntryArgument {
    static func values(for argument: String, in context: ModuleContext) throws -> [String]? {
        guard argument == "id" || argument == "compare" else { return nil }
        return try HealthRecordStore(context).all(Entry.self).map { HealthRecordID.short($0.recordID) }
    }
}

extension AudiogramCommand.Show: RecordEntryArgument { typealias Entry = Audiogram }
extension AudiogramCommand.Edit: RecordEntryArgument { typealias Entry = Audiogram }
extension AudiogramCommand.Delete: RecordEntryArgument { typealias Entry = Audiogram }
extension EventCommand.Show: RecordEntryArgument { typealias Entry = HealthEvent }
extension EventCommand.Edit: RecordEntryArgument { typealias Entry = HealthEvent }
extension EventCommand.Delete: RecordEntryArgument { typealias Entry = HealthEvent }
extension TherapyCommand.Show: RecordEntryArgument { typealias Entry = Therapy }
extension TherapyCommand.Edit: RecordEntryArgument { typealias Entry = Therapy }
extension TherapyCommand.Delete: RecordEntryArgument { typealias Entry = Therapy }

// The clinical questionnaires by id.
extension FillCommand: StudyQuestionnaireArgument {}
extension ScoresCommand: StudyQuestionnaireArgument {}
