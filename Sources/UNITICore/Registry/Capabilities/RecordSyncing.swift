/// A module with records that follow the person to their other devices (listening sessions,
/// health-record entries, feedback): it declares their types, and the core queues every change
/// in the change's own transaction, merges pulled versions newest-wins, applies tombstones and
/// routes each pulled record to its type by kind (see ``SyncedRecord``).
public protocol RecordSyncing: UNITIModule {
    /// The module's record types; their ``SyncedRecord/recordKind`` names are unique within it.
    var syncedRecordTypes: [any SyncedRecord.Type] { get }
}
