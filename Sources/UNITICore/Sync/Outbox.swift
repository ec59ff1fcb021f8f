import Foundation
import GRDB

/// The one durable queue of local changes that must reach the server.
///
/// A change and its outbox entry are written in the same transaction (callers pass the open
/// `Database`), so a crash can never keep one without the other. Each entry carries a
/// client-generated UUID that the server uses to make a repeated upload harmless (idempotent):
/// an entry is removed only after the server acknowledged it, so a process killed mid-sync
/// re-sends at most what the server then recognises as already stored.
///
/// Entries are matched by client id *and revision*: a change queued again while a sync is sending
/// the previous version (in this process's background sync, or another program's) bumps the
/// revision, so the acknowledgement of the old version cannot remove the new one, which is then
/// sent by the next sync.
///
/// Failed deliveries wait with exponential backoff and full jitter; an entry the server rejects
/// as invalid (422) is kept, marked rejected with the server's reason, and not retried. An entry
/// the server cannot take *yet* (a sheet for a questionnaire of a study not joined) is kept
/// waiting: not retried on a timer, but woken by a join, new questionnaires or an explicit sync.
public struct Outbox: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public enum State: String, Codable, Sendable {
        case pending
        case rejected
        /// Not deliverable until something changes on the server side (see `wait`).
        case waiting
    }

    /// One queued change.
    public struct Entry: Codable, Sendable, Equatable, FetchableRecord {
        public var id: Int64
        public var clientID: String
        /// What the payload is, e.g. `answerSheet` or `record`: the sync engine picks the route by it.
        public var kind: String
        public var moduleID: String
        public var payload: Data
        public var createdAt: Date
        public var attempts: Int
        public var nextAttemptAt: Date
        public var state: State
        public var lastError: String?
        /// The server's error code of `lastError`, when the server gave one: the reason is worded
        /// from it in the person's language when shown (``reasonText``).
        public var lastErrorCode: String?
        /// Bumped whenever the entry's payload is replaced (see the type's notes).
        public var revision: Int

        /// Why the entry waits or was refused, in the person's language where the server gave a
        /// code (``APIError/worded(code:serverText:)``).
        public var reasonText: String {
            guard let lastErrorCode else { return lastError ?? "" }
            return APIError.worded(code: lastErrorCode, serverText: lastError ?? "")
        }
    }

    /// Queues a change inside the caller's transaction. A second entry with the same client id
    /// replaces the payload of the first (the latest version of a record is what must arrive).
    public static func enqueue(_ db: Database, kind: String, moduleID: String, clientID: String,
                               payload: Data, at date: Date) throws {
        try db.execute(sql: """
            INSERT INTO core_outbox(clientID, kind, moduleID, payload, createdAt, attempts, nextAttemptAt, state)
            VALUES (?, ?, ?, ?, ?, 0, ?, 'pending')
            ON CONFLICT(clientID) DO UPDATE SET
                payload = excluded.payload, kind = excluded.kind, attempts = 0,
                nextAttemptAt = excluded.nextAttemptAt, state = 'pending', lastError = NULL, lastErrorCode = NULL,
                revision = core_outbox.revision + 1
            """, arguments: [clientID, kind, moduleID, payload, date, date])
    }

    /// Entries due for delivery at `now`, oldest first.
    public func due(at now: Date, limit: Int = 500) throws -> [Entry] {
        try database.writer.read { db in
            try Entry.fetchAll(db, sql: """
                SELECT * FROM core_outbox WHERE state = 'pending' AND nextAttemptAt <= ?
                ORDER BY id LIMIT ?
                """, arguments: [now, limit])
        }
    }

    /// Removes entries the server acknowledged (stored now, or already before): the versions that
    /// were sent, not a newer one queued meanwhile.
    /// `alsoWriting` runs in the same transaction (e.g. a cursor that moves past what was sent).
    public func acknowledge(_ entries: [Entry], alsoWriting: ((Database) throws -> Void)? = nil) throws {
        guard !entries.isEmpty else { return }
        try database.writer.write { db in
            try alsoWriting?(db)
            let statement = try db.cachedStatement(sql: "DELETE FROM core_outbox WHERE clientID = ? AND revision = ?")
            for entry in entries {
                try statement.execute(arguments: [entry.clientID, entry.revision])
            }
        }
    }

    /// Records a failed attempt (network error, 5xx) and schedules the next one.
    public func recordFailure<R: RandomNumberGenerator>(_ entries: [Entry], error: String, at now: Date,
                                                        using random: inout R) throws {
        try database.writer.write { db in
            for entry in entries {
                guard let attempts = try Int.fetchOne(db, sql: "SELECT attempts FROM core_outbox WHERE clientID = ? AND revision = ?",
                                                      arguments: [entry.clientID, entry.revision]) else { continue }
                let delay = Backoff.outbox.delay(afterAttempts: attempts + 1, using: &random)
                try db.execute(sql: """
                    UPDATE core_outbox SET attempts = ?, lastError = ?, nextAttemptAt = ? WHERE clientID = ? AND revision = ?
                    """, arguments: [attempts + 1, error, now.addingTimeInterval(delay), entry.clientID, entry.revision])
            }
        }
    }

    /// Marks an entry the server refused as invalid; it stays, visible in `sync --status`.
    /// `code` is the server's error code of `reason`, nil for a reason of the client's own.
    public func reject(_ entry: Entry, code: String? = nil, reason: String) throws {
        try mark([entry], state: .rejected, code: code, reason: reason)
    }

    /// Parks entries the server cannot take yet, with its reason; they are not retried until
    /// `wakeWaiting` (after a join, new questionnaires, or an explicit sync).
    public func wait(_ entries: [Entry], code: String? = nil, reason: String) throws {
        try mark(entries, state: .waiting, code: code, reason: reason)
    }

    private func mark(_ entries: [Entry], state: State, code: String?, reason: String) throws {
        guard !entries.isEmpty else { return }
        try database.writer.write { db in
            let statement = try db.cachedStatement(sql: """
                UPDATE core_outbox SET state = ?, lastError = ?, lastErrorCode = ? WHERE clientID = ? AND revision = ?
                """)
            for entry in entries {
                try statement.execute(arguments: [state.rawValue, reason, code, entry.clientID, entry.revision])
            }
        }
    }

    /// Makes waiting entries pending and due at `now`; returns how many there were.
    @discardableResult
    public func wakeWaiting(at now: Date) throws -> Int {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE core_outbox SET state = 'pending', nextAttemptAt = ? WHERE state = 'waiting'", arguments: [now])
            return db.changesCount
        }
    }

    /// Makes every pending entry due now (for an explicit `sync`, which should not wait out a backoff).
    public func makeAllDue(at now: Date) throws {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE core_outbox SET nextAttemptAt = ? WHERE state = 'pending'", arguments: [now])
        }
    }

    public func count(_ state: State) throws -> Int {
        try database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_outbox WHERE state = ?", arguments: [state.rawValue]) ?? 0
        }
    }

    /// Entries that will still be sent: pending and waiting (not the rejected ones).
    public func undeliveredCount() throws -> Int {
        try count(.pending) + count(.waiting)
    }

    public func rejected() throws -> [Entry] {
        try entries(.rejected)
    }

    public func waiting() throws -> [Entry] {
        try entries(.waiting)
    }

    private func entries(_ state: State) throws -> [Entry] {
        try database.writer.read { db in
            try Entry.fetchAll(db, sql: "SELECT * FROM core_outbox WHERE state = ? ORDER BY id", arguments: [state.rawValue])
        }
    }
}

/// Retry delays: exponential from `base`, doubling up to `cap`, with full jitter (a delay
/// anywhere in the upper half of the step), so that many clients coming back online do not hit
/// the server in step.
public struct Backoff: Sendable {
    public let base: TimeInterval
    public let cap: TimeInterval

    public init(base: TimeInterval, cap: TimeInterval) {
        self.base = base
        self.cap = cap
    }

    /// An outbox entry's: 5 s, 10 s, 20 s, ... capped at one hour.
    public static let outbox = Backoff(base: 5, cap: 3600)

    public func delay<R: RandomNumberGenerator>(afterAttempts attempts: Int, using random: inout R) -> TimeInterval {
        let exponent = Double(min(max(attempts - 1, 0), 20))
        let ceiling = min(cap, base * pow(2, exponent))
        return Double.random(in: (ceiling / 2)...ceiling, using: &random)
    }
}

/// The outbox table.
enum SyncMigrations {
    static let set = MigrationSet(owner: "core", steps: [
        ModuleMigration("v1-outbox") { db in
            try db.create(table: "core_outbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("clientID", .text).notNull().unique()
                t.column("kind", .text).notNull()
                t.column("moduleID", .text).notNull()
                t.column("payload", .blob).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("nextAttemptAt", .datetime).notNull()
                t.column("state", .text).notNull().defaults(to: "pending")
                t.column("lastError", .text)
            }
            try db.create(index: "core_outbox_due", on: "core_outbox", columns: ["state", "nextAttemptAt"])
        },
        ModuleMigration("v1-server-questionnaires") { db in
            try db.create(table: "core_server_questionnaires") { t in
                t.column("id", .text).notNull()
                t.column("version", .integer).notNull()
                t.column("studyID", .text).notNull()
                t.column("definition", .text).notNull()
                t.primaryKey(["id", "version"])
            }
        },
        ModuleMigration("v1-etags") { db in
            try db.create(table: "core_etags") { t in
                t.column("route", .text).primaryKey()
                t.column("etag", .text).notNull()
            }
        },
        ModuleMigration("v2-outbox-revisions") { db in
            // Which version of an entry was sent (see Outbox): an acknowledgement removes only it.
            try db.alter(table: "core_outbox") { t in t.add(column: "revision", .integer).notNull().defaults(to: 0) }
        },
        ModuleMigration("v2-parked-records") { db in
            // Pulled records this program could not apply (ParkedRecords): newest per record.
            try db.create(table: "core_parked_records") { t in
                t.column("owner", .text).notNull()
                t.column("clientID", .text).notNull()
                t.column("updatedAt", .double).notNull()
                t.column("record", .blob).notNull()
                t.column("reason", .text).notNull()
                t.primaryKey(["owner", "clientID"])
            }
            try db.create(table: "core_parked_sheets") { t in
                t.column("id", .text).primaryKey()
                t.column("owner", .text).notNull()
                t.column("sheet", .blob).notNull()
            }
        },
        ModuleMigration("v3-outbox-error-codes") { db in
            // The server's code beside its reason, so the reason is shown in the person's language.
            try db.alter(table: "core_outbox") { t in t.add(column: "lastErrorCode", .text) }
        },
    ])
}
