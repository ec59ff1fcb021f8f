import Foundation
import UNITIProtocol

/// Where the generic per-user module records are kept (health-record entries, listening sessions,
/// settings that follow the person): upsert by (module, client id), the newest update time wins,
/// deletions stay as tombstones so that other devices learn of them. Part of every ``ServerStore``.
public protocol RecordStore: Sendable {
    /// Applies the changes in one transaction, each only when it is newer than what is stored.
    func applyRecords(userId: Int64, changes: [RecordChange]) async throws -> [ModuleRecordBatchResult.Outcome]
    /// Changes after `cursor` (a server sequence number), oldest first; with `updatedSince`, only
    /// records whose own update time is at or after it.
    func records(userId: Int64, after cursor: Int64, moduleId: ModuleID?, updatedSince: Date?,
                 limit: Int) async throws -> (records: [ModuleRecord], cursor: Int64, more: Bool)
    /// One record of the user by its address (tombstones included), nil when there is none: the
    /// web portal reads a questionnaire draft this way.
    func record(userId: Int64, moduleId: String, clientId: String) async throws -> ModuleRecord?
}

/// A module record ready to store, with its update time parsed.
public struct RecordChange: Sendable {
    public var upsert: ModuleRecordUpsert
    public var updatedAt: Date
}
