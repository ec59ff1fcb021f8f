import Foundation
import GRDB
import UNITIProtocol

/// What one sync did, for `sync` and the tests.
public struct SyncReport: Sendable, Equatable {
    public var sheetsDelivered = 0
    public var recordsDelivered = 0
    /// Prompt lifecycle events the server now holds (``PromptLog``).
    public var promptEventsDelivered = 0
    public var rejected = 0
    /// Sheets the server cannot take yet (questionnaire of a study not joined, or a new consent
    /// not agreed to); kept waiting.
    public var waiting = 0
    /// Of ``waiting``, those held back for a consent version not agreed to yet.
    public var waitingForConsent = 0
    public var studiesUpdated = false
    public var questionnairesUpdated = 0
    public var recordsPulled = 0
    /// The person's answer sheets pulled from the server (sent by this or another device).
    public var sheetsPulled = 0
    /// Pulled records and sheets kept aside for modules this program does not have.
    public var parked = 0
    /// Module resources (e.g. a sound catalogue) taken over from the server.
    public var resourcesUpdated = 0
    /// One line per resource the server offered that a module could not use (it kept its own).
    public var resourceProblems: [String] = []
    /// One line per questionnaire the server sent that does not validate (the previous version
    /// stays in use).
    public var questionnaireProblems: [String] = []
    /// Set when the sync stopped early; everything not delivered stays queued.
    public var stoppedBecause: APIError?
    /// Set when another program was syncing this data directory and this sync did not run.
    public var anotherSyncRunning = false
}

/// Brings the device and the study server into step: pushes the outbox, then pulls studies,
/// questionnaires (with ETags per route), module records and the person's own answer sheets
/// (each by cursor), and module resources.
///
/// Every step is safe to repeat and to cut short: the outbox entry of a change is removed only
/// after the server acknowledged it, and the server recognises a repeated client id, so a sync
/// killed at any point neither loses nor duplicates anything. Network errors and 5xx schedule a
/// retry with backoff; an access token that ends is renewed by the client on the way
/// (``SessionRefresher``), and only a renewal the server refuses (401) stops the sync and asks
/// for a new login, with everything kept queued; 422 marks the entry
/// rejected with the server's reason; 409 `questionnaire_unavailable` (a study not joined) and
/// `consent_required` (a new consent version not agreed to yet) keep a sheet waiting until a
/// join, an agreement, new questionnaires or an explicit sync wake it.
public struct SyncEngine: Sendable {
    let services: CoreServices
    let modules: [any UNITIModule]
    let client: APIClient

    /// Entries per request: the server's maximum batch.
    public static let batchSize = 500
    /// Payload bytes per request, below the server's 1 MiB body limit.
    static let batchBytes = 900 * 1024
    static let lastSuccessKey = "sync.lastSuccess"
    static let lastErrorKey = "sync.lastError"
    static let recordsCursorKey = "sync.recordsCursor"
    static let sheetsCursorKey = "sync.sheetsCursor"
    /// The joined studies whose current consent the person has not agreed to, as the last
    /// studies pull found them (comma-separated ids): kept, so each sync and login can ask again
    /// even when the list did not change (304).
    static let consentPendingKey = "sync.consentPending"

    /// The joined studies that wait for the person's agreement to a new consent version; their
    /// sheets wait in the outbox meanwhile.
    public static func studiesAwaitingConsent(of services: CoreServices) throws -> [String] {
        try services.settings.string(consentPendingKey)?.split(separator: ",").map(String.init) ?? []
    }

    public init(services: CoreServices, modules: [any UNITIModule], client: APIClient) {
        self.services = services
        self.modules = modules
        self.client = client
    }

    var outbox: Outbox { Outbox(database: services.database) }

    /// How long an explicit sync waits for another program's sync of the same data directory.
    public static let otherSyncPatience: TimeInterval = 120

    /// Pushes, then pulls. `force` makes entries that wait out a backoff due now and wakes the
    /// waiting ones (explicit `sync`); `retriesPending` makes only the pending ones due (the
    /// background try of a shell at its prompt, whose own ``SyncSchedule`` decided it is time:
    /// an entry's backoff may have grown beyond it while earlier syncs failed).
    ///
    /// One sync runs per data directory at a time, across programs (the shell in two terminals,
    /// the reminder daemon): an explicit sync (`waitsForOthers`) waits for another to finish, a
    /// background one leaves the work to it. Each entry is therefore sent by one of them, and the
    /// server's idempotency by client id covers a sync killed half way. Each sync that ran
    /// records its outcome in the ``SyncSchedule``.
    @discardableResult
    public func run(force: Bool = false, waitsForOthers: Bool = true, retriesPending: Bool = false) -> SyncReport {
        var report = SyncReport()
        let lock = services.dataDirectory.lock("sync")
        do {
            let acquired = waitsForOthers ? try lock.acquire(timeout: Self.otherSyncPatience) : try lock.tryAcquire()
            guard acquired else {
                report.anotherSyncRunning = true
                return report
            }
        } catch {
            report.stoppedBecause = .server(status: 0, message: (error as? UNITIError)?.message ?? "\(error)")
            return report
        }
        defer { lock.release() }
        let now = services.clock.now
        var failure: String?
        do {
            if force || retriesPending {
                try outbox.makeAllDue(at: now)
            }
            if force {
                try outbox.wakeWaiting(at: now)
            }
            try deliverParked()
            // Windows that ended since the last check are recorded before the events are sent.
            try PromptLog(database: services.database, clock: services.clock).expire(at: now)
            try push(&report)
            try pullStudies(&report)
            try pullQuestionnaires(&report)
            try pullRecords(&report)
            try pullSheets(&report)
            try pullResources(&report)
            // A study joined or approved elsewhere, or new questionnaires, may make waiting sheets
            // deliverable: wake them (once per sync, so nothing spins) and push again.
            if !force, report.studiesUpdated || report.questionnairesUpdated > 0,
               try outbox.wakeWaiting(at: services.clock.now) > 0 {
                report.waiting = 0
                report.waitingForConsent = 0
                try push(&report)
            }
        } catch let error as APIError {
            report.stoppedBecause = error
            failure = error.message
        } catch {
            report.stoppedBecause = APIError.server(status: 0, message: "\(error)")
            failure = "\(error)"
        }
        recordOutcome(failure: failure)
        return report
    }

    /// The last success or error for `sync --status`, and the next background try
    /// (``SyncSchedule``), in one transaction. Not written when the database cannot take it
    /// (a full disk): the sync's own work is done or kept either way.
    private func recordOutcome(failure: String?) {
        let now = services.clock.now, timeZone = services.clock.timeZone
        var random = RandomSourceGenerator(source: services.random)
        try? services.database.writer.write { db in
            if failure == nil {
                try SettingsStore.write(db, Self.lastSuccessKey, OffsetTimestamp(now, in: timeZone).text)
            }
            try SettingsStore.write(db, Self.lastErrorKey, failure)
            try SyncSchedule.record(db, succeeded: failure == nil, at: now, in: timeZone, using: &random)
        }
    }

    // MARK: - Push

    private func push(_ report: inout SyncReport) throws {
        var random = RandomSourceGenerator(source: services.random)
        while true {
            let due = try outbox.due(at: services.clock.now, limit: Self.batchSize)
            guard !due.isEmpty else { return }
            let known = [SheetOutbox.kind, RecordOutbox.kind, PromptLog.outboxKind]
            let unknown = due.filter { !known.contains($0.kind) }
            for entry in unknown {
                try outbox.reject(entry, reason: "unknown kind \(entry.kind)")
            }
            for chunk in Self.chunks(of: due, maximumBytes: Self.batchBytes) {
                let sheets = chunk.filter { $0.kind == SheetOutbox.kind }
                let records = chunk.filter { $0.kind == RecordOutbox.kind }
                let events = chunk.filter { $0.kind == PromptLog.outboxKind }
                do {
                    if !sheets.isEmpty { try pushSheets(sheets, report: &report) }
                    if !records.isEmpty {
                        let delivered = try pushRecords(records, report: &report)
                        report.recordsDelivered += delivered
                    }
                    if !events.isEmpty {
                        let delivered = try pushPromptEvents(events, report: &report)
                        report.promptEventsDelivered += delivered
                    }
                } catch let error as APIError where error.isTransient {
                    try outbox.recordFailure(chunk, error: error.message,
                                             at: services.clock.now, using: &random)
                    throw error
                }
            }
        }
    }

    /// Splits entries, in order, into request bodies the server accepts (it refuses bodies over 1 MiB).
    static func chunks(of entries: [Outbox.Entry], maximumBytes: Int) -> [[Outbox.Entry]] {
        var chunks: [[Outbox.Entry]] = []
        var current: [Outbox.Entry] = []
        var bytes = 0
        for entry in entries {
            if !current.isEmpty, bytes + entry.payload.count + 1 > maximumBytes {
                chunks.append(current)
                current = []
                bytes = 0
            }
            current.append(entry)
            bytes += entry.payload.count + 1
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    /// The fields of a queued sheet that sync needs; the payload itself is sent as stored.
    private struct SheetHeader: Decodable {
        let id: UUID
        let questionnaireID: String
        let questionnaireVersion: Int
    }

    /// Sends sheets, one request per questionnaire version (a version the server cannot take yet
    /// for this person holds back only its own sheets).
    private func pushSheets(_ entries: [Outbox.Entry], report: inout SyncReport) throws {
        var groups: [String: [Outbox.Entry]] = [:]
        var order: [String] = []
        var ids: [Int64: String] = [:]
        for entry in entries {
            guard let header = try? APIClient.decoder.decode(SheetHeader.self, from: entry.payload) else {
                try outbox.reject(entry, reason: "unreadable sheet")
                report.rejected += 1
                continue
            }
            let key = "\(header.questionnaireID)#\(header.questionnaireVersion)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(entry)
            ids[entry.id] = header.id.uuidString.lowercased()
        }
        for key in order {
            let delivered = try deliver(groups[key]!, report: &report) { group, report in
                do {
                    // With the pull's cursor, the server answers with the cursor past these sheets
                    // when nothing else of the person's lies after it: they are stored here already
                    // (queued in the transaction that saved them), so the pull need not fetch them back.
                    let cursor = try services.settings.string(Self.sheetsCursorKey)
                    let result: AnswerSheetBatchResult = try client.send(
                        "POST", "sheets", query: cursor.map { [URLQueryItem(name: "cursor", value: $0)] } ?? [],
                        jsonBody: Self.batchBody("sheets", group))
                    let acknowledged = Set(result.results.map { $0.id.lowercased() })
                    let delivered = group.filter { ids[$0.id].map(acknowledged.contains) ?? false }
                    try outbox.acknowledge(delivered) { db in
                        if let next = result.cursor { try SettingsStore.write(db, Self.sheetsCursorKey, next) }
                    }
                    return delivered.count
                } catch APIError.rejected(409, let code, let message)
                            where code == AnswerSheetBatchResult.questionnaireUnavailableCode || code == AnswerSheetBatchResult.consentRequiredCode {
                    // Early (a study not joined yet) or before consent: kept, and sent once that changed.
                    try outbox.wait(group, code: code, reason: message)
                    report.waiting += group.count
                    if code == AnswerSheetBatchResult.consentRequiredCode { report.waitingForConsent += group.count }
                    return 0
                }
            }
            report.sheetsDelivered += delivered
        }
    }

    /// Sends record changes; applied or stale (the server already holds something newer), either
    /// way they are delivered.
    private func pushRecords(_ entries: [Outbox.Entry], report: inout SyncReport) throws -> Int {
        try deliver(entries, report: &report) { batch, _ in
            let _: ModuleRecordBatchResult = try client.send("POST", "records", jsonBody: Self.batchBody("records", batch))
            try outbox.acknowledge(batch)
            return batch.count
        }
    }

    /// Sends prompt events; the server names the ids it holds, stored now or before, and only
    /// those leave the outbox.
    private func pushPromptEvents(_ entries: [Outbox.Entry], report: inout SyncReport) throws -> Int {
        try deliver(entries, report: &report) { batch, _ in
            let result: PromptEventBatchResult = try client.send("POST", "prompts/events", jsonBody: Self.batchBody("events", batch))
            let stored = Set(result.stored.map { "prompt:\($0.uuidString.lowercased())" })
            let delivered = batch.filter { stored.contains($0.clientID) }
            try outbox.acknowledge(delivered)
            return delivered.count
        }
    }

    /// Sends `entries` in one request through `send` (which returns how many the server now
    /// holds). When the server refuses the request as invalid (400/422), they go again one at a
    /// time, so that only an entry it cannot take is marked rejected, with its reason, and the
    /// rest of the batch still arrives: sheets, records and prompt events are all research data.
    private func deliver(_ entries: [Outbox.Entry], report: inout SyncReport,
                         _ send: ([Outbox.Entry], inout SyncReport) throws -> Int) throws -> Int {
        do {
            return try send(entries, &report)
        } catch APIError.rejected(let status, let code, let message) where status == 422 || status == 400 {
            guard entries.count > 1 else {
                try outbox.reject(entries[0], code: code, reason: message)
                report.rejected += 1
                return 0
            }
            return try entries.reduce(0) { delivered, entry in delivered + (try deliver([entry], report: &report, send)) }
        }
    }

    /// The request body `{"<key>":[…]}` of stored payloads, which are the wire format already:
    /// joined without decoding.
    private static func batchBody(_ key: String, _ entries: [Outbox.Entry]) -> Data {
        var body = Data("{\"\(key)\":[".utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(entry.payload)
        }
        body.append(contentsOf: Array("]}".utf8))
        return body
    }

    // MARK: - Pull

    private func pullStudies(_ report: inout SyncReport) throws {
        let route = "studies"
        let etags = ETagStore(database: services.database)
        guard case .modified(let list, let etag) = try client.conditionalGet(route, etag: try etags.etag(for: route), as: StudyList.self) else {
            return
        }
        let now = services.clock.now
        let consentPending = list.studies.filter { $0.membership == .member && $0.needsConsent }.map(\.id)
        try services.database.writer.write { db in
            try StudyCatalog.replaceServerStudies(db, with: list.studies.map { ($0.descriptor, $0.membership == .member) }, at: now)
            try SettingsStore.write(db, Self.consentPendingKey, consentPending.isEmpty ? nil : consentPending.joined(separator: ","))
            try ETagStore.store(db, etag: etag, for: route)
        }
        report.studiesUpdated = true
    }

    /// The questionnaires of every joined study, as one list with one ETag
    /// (``StudyQuestionnaireStore``): a 304 costs nothing, a changed list replaces what the
    /// device knows, a questionnaire that does not validate is refused on its own.
    private func pullQuestionnaires(_ report: inout SyncReport) throws {
        let route = StudyQuestionnaireStore.route
        let etags = ETagStore(database: services.database)
        guard case .modified(let list, let etag) = try client.conditionalGet(
            route, etag: try etags.etag(for: route), as: AssignedQuestionnaireList.self) else { return }
        let outcome = try services.database.writer.write { db in
            try StudyQuestionnaireStore.apply(list, etag: etag, in: db)
        }
        report.questionnairesUpdated += outcome.changed + outcome.removed
        report.questionnaireProblems += outcome.problems
    }

    /// Module records by cursor. Each is merged by its type (``RecordRouter``); those of modules
    /// this program lacks are parked, so the cursor can move on without dropping anything.
    private func pullRecords(_ report: inout SyncReport) throws {
        let router = try RecordRouter(modules: modules)
        while true {
            let cursor = try services.settings.string(Self.recordsCursorKey)
            var query = [URLQueryItem(name: "limit", value: "200")]
            if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
            let page: ModuleRecordPage = try client.send("GET", "records", query: query)
            try services.database.writer.write { db in
                for record in page.records where try router.apply(record, in: db) != .applied {
                    report.parked += 1
                }
                // The cursor moves in the same transaction as the records it covers.
                try SettingsStore.write(db, Self.recordsCursorKey, page.cursor)
            }
            report.recordsPulled += page.records.count
            if !page.more || page.records.isEmpty { return }
        }
    }

    /// The person's own answer sheets, sent by this or another device, by cursor: each goes to
    /// its owner (``SheetRouter``), so `tyt results` on the laptop shows the phone's check-ins.
    private func pullSheets(_ report: inout SyncReport) throws {
        let router = SheetRouter(modules: modules)
        while true {
            var query = [URLQueryItem(name: "limit", value: "200")]
            if let cursor = try services.settings.string(Self.sheetsCursorKey) { query.append(URLQueryItem(name: "cursor", value: cursor)) }
            let page: AnswerSheetChanges = try client.send("GET", "sheets/changes", query: query)
            try services.database.writer.write { db in
                for stored in page.sheets { try router.keep(stored.sheet, in: db) }
                try SettingsStore.write(db, Self.sheetsCursorKey, page.cursor)
            }
            report.sheetsPulled += page.sheets.count
            if !page.more || page.sheets.isEmpty { return }
        }
    }

    /// Applies records and sheets parked by a program that lacked their module, now that one
    /// that has it runs (also done when a program opens the data directory).
    private func deliverParked() throws {
        try ParkedRecords.deliverPending(for: modules, in: services.database)
    }

    // MARK: - Status

    public struct Status: Sendable, Codable {
        public var pending: Int
        /// Pulled records and sheets kept for modules this program does not have.
        public var parked: Int
        public var waiting: [HeldEntry]
        public var rejected: [HeldEntry]
        public var lastSuccess: String?
        public var lastError: String?
        /// When a sync last ran, whatever its outcome.
        public var lastAttempt: String?
        /// When a shell waiting at its prompt tries again (``SyncSchedule``; now when no sync
        /// ran yet); nil when nothing pending waits for it.
        public var nextAttempt: String?
    }

    /// An entry the outbox keeps without retrying it on a timer, with the server's reason (in
    /// the person's language where the server gave a code) and, for an answer sheet, the
    /// questionnaire it answers.
    public struct HeldEntry: Sendable, Codable {
        public var module: String
        public var kind: String
        public var questionnaire: String?
        public var code: String?
        public var reason: String
    }

    /// The questionnaire a queued answer sheet answers, read from its payload.
    private struct SheetQuestionnaire: Decodable {
        var questionnaireID: String
    }

    public static func status(of services: CoreServices) throws -> Status {
        let outbox = Outbox(database: services.database)
        func held(_ entries: [Outbox.Entry]) -> [HeldEntry] {
            entries.map { entry in
                let questionnaire = entry.kind == SheetOutbox.kind
                    ? (try? JSONDecoder().decode(SheetQuestionnaire.self, from: entry.payload))?.questionnaireID : nil
                return HeldEntry(module: entry.moduleID, kind: entry.kind, questionnaire: questionnaire,
                                 code: entry.lastErrorCode, reason: entry.reasonText)
            }
        }
        let pending = try outbox.count(.pending)
        let schedule = try SyncSchedule.read(from: services.database)
        return Status(
            pending: pending,
            parked: try services.database.writer.read { db in try ParkedRecords.count(in: db) },
            waiting: held(try outbox.waiting()),
            rejected: held(try outbox.rejected()),
            lastSuccess: try services.settings.string(lastSuccessKey),
            lastError: try services.settings.string(lastErrorKey),
            lastAttempt: schedule.lastAttempt?.text,
            nextAttempt: pending > 0
                ? (schedule.nextAttempt ?? OffsetTimestamp(services.clock.now, in: services.clock.timeZone)).text : nil
        )
    }
}
