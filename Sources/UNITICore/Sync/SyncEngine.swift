import Foundation
import GRDB
import UNITIProtocol

/// What one sync did, for `sync` and the tests.
public struct SyncReport: Sendable, Equatable {
    public var sheetsDelivered = 0
    public var recordsDelivered = 0
    public var rejected = 0
    public var studiesUpdated = false
    public var questionnairesUpdated = 0
    public var recordsPulled = 0
    /// Module resources (e.g. a sound catalogue) taken over from the server.
    public var resourcesUpdated = 0
    /// One line per resource the server offered that a module could not use (it kept its own).
    public var resourceProblems: [String] = []
    /// Set when the sync stopped early; everything not delivered stays queued.
    public var stoppedBecause: APIError?
}

/// Brings the device and the study server into step: pushes the outbox, then pulls studies,
/// questionnaires (with ETags per route) and module records (by cursor).
///
/// Every step is safe to repeat and to cut short: the outbox entry of a change is removed only
/// after the server acknowledged it, and the server recognises a repeated client id, so a sync
/// killed at any point neither loses nor duplicates anything. Network errors and 5xx schedule a
/// retry with backoff; 401 stops the sync and asks for a new login; 422 marks the entry
/// rejected with the server's reason.
public struct SyncEngine: Sendable {
    let services: CoreServices
    let modules: [any UNITIModule]
    let client: APIClient

    public static let batchSize = 200
    static let lastSuccessKey = "sync.lastSuccess"
    static let lastErrorKey = "sync.lastError"
    static let recordsCursorKey = "sync.recordsCursor"

    public init(services: CoreServices, modules: [any UNITIModule], client: APIClient) {
        self.services = services
        self.modules = modules
        self.client = client
    }

    var outbox: Outbox { Outbox(database: services.database) }

    /// Pushes, then pulls. `force` makes entries that wait out a backoff due now (explicit `sync`).
    @discardableResult
    public func run(force: Bool = false) -> SyncReport {
        var report = SyncReport()
        let now = services.clock.now
        do {
            if force { try outbox.makeAllDue(at: now) }
            try push(&report)
            try pullStudies(&report)
            try pullQuestionnaires(&report)
            try pullRecords(&report)
            try pullResources(&report)
            try services.settings.set(Self.lastSuccessKey, to: OffsetTimestamp(services.clock.now, in: services.clock.timeZone).text)
            try services.settings.set(Self.lastErrorKey, to: nil)
        } catch let error as APIError {
            report.stoppedBecause = error
            try? services.settings.set(Self.lastErrorKey, to: error.message)
        } catch {
            let apiError = APIError.server(status: 0, message: "\(error)")
            report.stoppedBecause = apiError
            try? services.settings.set(Self.lastErrorKey, to: "\(error)")
        }
        return report
    }

    // MARK: - Push

    private func push(_ report: inout SyncReport) throws {
        var random = SystemRandomNumberGenerator()
        while true {
            let due = try outbox.due(at: services.clock.now, limit: Self.batchSize)
            guard !due.isEmpty else { return }
            let sheets = due.filter { $0.kind == SheetOutbox.kind }
            let records = due.filter { $0.kind == RecordOutbox.kind }
            let unknown = due.filter { $0.kind != SheetOutbox.kind && $0.kind != RecordOutbox.kind }
            for entry in unknown {
                try outbox.reject(clientID: entry.clientID, reason: "unknown kind \(entry.kind)")
            }
            do {
                if !sheets.isEmpty { report.sheetsDelivered += try pushSheets(sheets, report: &report) }
                if !records.isEmpty { report.recordsDelivered += try pushRecords(records) }
            } catch let error as APIError where error.isTransient {
                try outbox.recordFailure(clientIDs: due.map(\.clientID), error: error.message,
                                         at: services.clock.now, using: &random)
                throw error
            }
        }
    }

    /// Sends sheets in one batch; when the server refuses the batch as invalid, sends them one
    /// by one so that only the invalid ones are marked rejected.
    private func pushSheets(_ entries: [Outbox.Entry], report: inout SyncReport) throws -> Int {
        var decoded: [(Outbox.Entry, AnswerSheet)] = []
        for entry in entries {
            if let sheet = try? APIClient.decoder.decode(AnswerSheet.self, from: entry.payload) {
                decoded.append((entry, sheet))
            } else {
                try outbox.reject(clientID: entry.clientID, reason: "unreadable sheet")
                report.rejected += 1
            }
        }
        guard !decoded.isEmpty else { return 0 }
        do {
            let result: AnswerSheetBatchResult = try client.send("POST", "sheets", body: AnswerSheetBatch(sheets: decoded.map(\.1)))
            let acknowledged = Set(result.results.map(\.id))
            let delivered = decoded.filter { acknowledged.contains($0.1.id.uuidString) || acknowledged.contains($0.1.id.uuidString.lowercased()) }
            try outbox.acknowledge(clientIDs: delivered.map(\.0.clientID))
            return delivered.count
        } catch APIError.rejected(let status, _, let message) where status == 422 || status == 400 {
            guard decoded.count > 1 else {
                try outbox.reject(clientID: decoded[0].0.clientID, reason: message)
                report.rejected += 1
                return 0
            }
            var delivered = 0
            for (entry, _) in decoded {
                delivered += try pushSheets([entry], report: &report)
            }
            return delivered
        }
    }

    private func pushRecords(_ entries: [Outbox.Entry]) throws -> Int {
        let upserts = entries.compactMap { try? APIClient.decoder.decode(ModuleRecordUpsert.self, from: $0.payload) }
        guard !upserts.isEmpty else { return 0 }
        do {
            let _: ModuleRecordBatchResult = try client.send("POST", "records", body: ModuleRecordBatch(records: upserts))
            // Applied or stale (the server already holds something newer): either way delivered.
            try outbox.acknowledge(clientIDs: entries.map(\.clientID))
            return entries.count
        } catch APIError.rejected(let status, _, let message) where status == 422 || status == 400 {
            for entry in entries { try outbox.reject(clientID: entry.clientID, reason: message) }
            return 0
        }
    }

    // MARK: - Pull

    private func pullStudies(_ report: inout SyncReport) throws {
        let route = "studies"
        let etags = ETagStore(database: services.database)
        guard case .modified(let list, let etag) = try client.conditionalGet(route, etag: try etags.etag(for: route), as: StudyList.self) else {
            return
        }
        let now = services.clock.now
        try services.database.writer.write { db in
            try StudyCatalog.replaceServerStudies(db, with: list.studies.map { ($0.descriptor, $0.membership == .member) }, at: now)
            try ETagStore.store(db, etag: etag, for: route)
        }
        report.studiesUpdated = true
    }

    private func pullQuestionnaires(_ report: inout SyncReport) throws {
        let etags = ETagStore(database: services.database)
        for study in try services.studies.joinedStudies() {
            let route = "studies/\(study.id)/questionnaires"
            guard case .modified(let list, let etag) = try client.conditionalGet(route, etag: try etags.etag(for: route), as: QuestionnaireList.self) else {
                continue
            }
            try services.database.writer.write { db in
                for document in list.questionnaires {
                    try ServerQuestionnaires.store(db, document)
                }
                try ETagStore.store(db, etag: etag, for: route)
            }
            report.questionnairesUpdated += list.questionnaires.count
        }
    }

    private func pullRecords(_ report: inout SyncReport) throws {
        while true {
            let cursor = try services.settings.string(Self.recordsCursorKey)
            var query = [URLQueryItem(name: "limit", value: "200")]
            if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
            let page: ModuleRecordPage = try client.send("GET", "records", query: query)
            try services.database.writer.write { db in
                // Drafts belong to the core whoever owns them; the rest to their modules.
                let drafts = QuestionnaireDraftStore(database: services.database, clock: services.clock)
                let moduleRecords = try SyncedDrafts.apply(page.records, store: drafts, in: db)
                let byModule = Dictionary(grouping: moduleRecords, by: \.moduleId)
                for module in modules {
                    if let records = byModule[module.descriptor.id], !records.isEmpty {
                        try module.applyPulledRecords(records, in: db)
                    }
                }
                // The cursor moves in the same transaction as the records it covers.
                try SettingsStore.write(db, Self.recordsCursorKey, page.cursor)
            }
            report.recordsPulled += page.records.count
            if !page.more || page.records.isEmpty { return }
        }
    }

    // MARK: - Status

    public struct Status: Sendable, Codable {
        public var pending: Int
        public var rejected: [RejectedEntry]
        public var lastSuccess: String?
        public var lastError: String?
    }

    public struct RejectedEntry: Sendable, Codable {
        public var module: String
        public var kind: String
        public var reason: String
    }

    public static func status(of services: CoreServices) throws -> Status {
        let outbox = Outbox(database: services.database)
        return Status(
            pending: try outbox.count(.pending),
            rejected: try outbox.rejected().map { RejectedEntry(module: $0.moduleID, kind: $0.kind, reason: $0.lastError ?? "") },
            lastSuccess: try services.settings.string(lastSuccessKey),
            lastError: try services.settings.string(lastErrorKey)
        )
    }
}
