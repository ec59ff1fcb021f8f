import Foundation
import Hummingbird
import UNITIProtocol

/// `/api/v1/records`: the generic per-user module record store (upsert by client id, newest
/// update wins, deletions as tombstones, incremental pull by an opaque cursor or by update time).
struct RecordRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// A group of the authenticated API.
    func register(on group: RouterGroup<APIContext>) {
        group.post("") { request, context in try await push(request, context) }
        group.get("") { request, context in try await pull(request, context.user) }
    }

    private func push(_ request: Request, _ context: APIContext) async throws -> ModuleRecordBatchResult {
        let user = context.user
        let batch = try await request.decode(as: ModuleRecordBatch.self, context: context)
        guard !batch.records.isEmpty, batch.records.count <= ServerLimits.maximumRecordsPerBatch else {
            throw APIError.invalid("invalid_batch", "Send 1 to \(ServerLimits.maximumRecordsPerBatch) records per batch.")
        }
        var changes: [RecordChange] = []
        for record in batch.records {
            // Any valid id, known or not: records of the shell (`uniti`) and of modules newer than
            // this server are kept for the person's other devices.
            guard ModuleID.isValid(record.moduleId) else {
                throw APIError.invalid("invalid_module_id", "Module id '\(record.moduleId.prefix(64))' is not one: use \(ModuleID.ruleDescription).")
            }
            guard (1...128).contains(record.clientId.count), !record.clientId.contains(where: { $0.isNewline || $0.isWhitespace }) else {
                throw APIError.invalid("invalid_client_id", "A record clientId has 1 to 128 characters without spaces.")
            }
            guard let updatedAt = Timestamps.parse(record.updatedAt) else {
                throw APIError.invalid("invalid_time", "Record \(record.clientId): updatedAt must be an ISO 8601 time with a UTC offset.")
            }
            if record.deleted != true {
                guard let payload = record.payload else {
                    throw APIError.invalid("missing_payload", "Record \(record.clientId): a record that is not deleted needs a payload.")
                }
                guard (try JSONCoding.data(payload)).count <= ServerLimits.maximumRecordPayloadBytes else {
                    throw APIError.invalid("payload_too_large", "Record \(record.clientId): the payload is larger than \(ServerLimits.maximumRecordPayloadBytes) bytes.")
                }
            }
            changes.append(RecordChange(upsert: record, updatedAt: updatedAt))
        }
        let outcomes = try await store.applyRecords(userId: user.account.id, changes: changes)
        let results = zip(batch.records, outcomes).map {
            ModuleRecordBatchResult.Entry(moduleId: $0.moduleId, clientId: $0.clientId, outcome: $1)
        }
        return ModuleRecordBatchResult(results: results)
    }

    private func pull(_ request: Request, _ user: AuthenticatedUser) async throws -> ModuleRecordPage {
        let cursor = try request.queryString("cursor").map(ChangeCursor.decode) ?? 0
        var moduleId: ModuleID?
        if let raw = request.queryString("module") {
            guard let id = ModuleID(rawValue: raw) else {
                throw APIError.badRequest("invalid_query", "'module' must be a module id such as 'tn' (\(ModuleID.ruleDescription)).")
            }
            moduleId = id
        }
        // `updated_since` selects by the records' own update time (a client that kept no cursor,
        // or wants one period); combined with `cursor` it pages through that selection.
        var updatedSince: Date?
        if let raw = request.queryString("updated_since") {
            guard let date = Timestamps.parse(raw) else {
                throw APIError.badRequest("invalid_updated_since",
                                          "'updated_since' must be an ISO 8601 time with a UTC offset, e.g. 2027-01-15T09:00:00Z.")
            }
            updatedSince = date
        }
        let limit = try request.queryInt("limit", default: 100, range: 1...ServerLimits.maximumPageSize)
        let page = try await store.records(userId: user.account.id, after: cursor, moduleId: moduleId,
                                           updatedSince: updatedSince, limit: limit)
        return ModuleRecordPage(records: page.records, cursor: ChangeCursor.encode(page.cursor), more: page.more)
    }
}
