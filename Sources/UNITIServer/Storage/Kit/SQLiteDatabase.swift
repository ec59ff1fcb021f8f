import Foundation
import GRDB
import Metrics
import Synchronization

/// The SQLite side of the kit: one file through GRDB, in WAL mode so that coordinator commands
/// can read and write it while `serve` runs; a busy timeout makes the second writer wait.
///
/// Reads go to GRDB's reader connections, one statement each. A transaction holds the writer
/// connection across suspension points, which GRDB allows when asked
/// (`allowsUnsafeTransactions`): `BEGIN IMMEDIATE`, the body's statements, `COMMIT`, each a turn
/// on the writer's queue; a group commit's transaction takes one turn in all
/// (``writeTransaction(_:)``). Every use of the writer in this process goes through
/// ``writerTurn``, so no statement from elsewhere lands inside another's open transaction.
final class SQLiteDatabase: StoreDatabase {
    let pool: DatabasePool
    private let path: String
    /// A turn that had to wait for another is counted for the operator's metrics
    /// (`uniti_database_waits_total`): a store where writes queue often is near its limit.
    private let writerTurn: SerialTurns
    var dialect: SQLDialect { .sqlite }

    /// `metrics` receives the writer waits: the process's backend (`serve --metrics-port`), or a
    /// test's own registry.
    init(path: String, migrator: DatabaseMigrator, metrics: any MetricsFactory = MetricsSystem.factory) throws {
        let waits = Counter(label: ServerMetrics.databaseWaits, factory: metrics)
        writerTurn = SerialTurns(onWait: { waits.increment() })
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.allowsUnsafeTransactions = true
        // A reader for each thread that may read at once (``rows(_:)`` blocks its thread), and
        // GRDB's five at least.
        configuration.maximumReaderCount = max(5, ProcessInfo.processInfo.activeProcessorCount + 2)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Deleted rows are overwritten with zeros, not left in free space: a deleted
            // account leaves no value in the file (``reclaimErasedSpace(tables:)``).
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        // A new database and its folder are private (``PrivateFiles``) before SQLite opens them;
        // SQLite gives its -wal and -shm files the database's mode.
        try PrivateFiles.createFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        try PrivateFiles.createIfMissing(path)
        pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
    }

    /// One statement on a reader connection, which prepares it once: compiling one (parsing, and
    /// GRDB's authorizer asked about every column read) had cost more than running it, and every
    /// request reads its session and more. One statement is a snapshot of its own in SQLite, so
    /// it needs no transaction around it (`unsafeRead`, which saves a `BEGIN` and a `COMMIT`).
    ///
    /// It runs on the calling thread: a request's reads take microseconds, and the hop to a
    /// reader's queue and back cost more (two of them per upload; `Scripts/bench/server` posted
    /// 13 % more sheets a second without them, `Documentation/uniti-server.md`). No reader is
    /// held long enough to make one wait: streamed reads (``forEachRow(_:_:)``) take a
    /// connection of their own, and there are readers for every thread of the process's pool.
    /// Every use of the reader pool must stay synchronous like this one: a reader taken by an
    /// async read goes back only when that task resumes on a task thread, so with every task
    /// thread blocked here waiting for a reader, none ever would (tried: reads hopping beside
    /// these hung the server under 64 connections). Under 64 comparisons at once their p99 grew
    /// (`Documentation/uniti-server.md`, "Uploads, fifth round").
    func rows(_ sql: SQL) async throws -> [SQLRow] {
        try readOnCallingThread(sql)
    }

    /// GRDB offers its blocking `unsafeRead` outside `async` functions only.
    private func readOnCallingThread(_ sql: SQL) throws -> [SQLRow] {
        try pool.unsafeRead { db in try Statements(db: db).rows(sql) }
    }

    /// One statement in a transaction of its own (SQLite's autocommit), in the writer's turn.
    func execute(_ sql: SQL) async throws {
        let (text, arguments) = Self.statement(sql)
        try await writerTurn.run {
            try await self.pool.writeWithoutTransaction { db in try db.execute(sql: text, arguments: arguments) }
        }
    }

    func lock(_ key: StoreLock) async throws {}

    /// On a read-only connection of its own, opened for this read: an export holds it for as long
    /// as it takes, and the pool's readers stay free for requests (``rows(_:)``).
    func forEachRow(_ sql: SQL, _ body: @escaping @Sendable (SQLRow) throws -> Void) async throws {
        let (text, arguments) = Self.statement(sql)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? connection.close() }
        try await connection.read { db in
            let cursor = try Row.fetchCursor(db, sql: text, arguments: arguments)
            while let row = try cursor.next() { try body(.sqlite(row.copy())) }
        }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction(.immediate, body)
    }

    /// A deferred transaction that only reads takes no write lock: other processes go on writing,
    /// and it sees the database as of its first read.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction(.deferred, body)
    }

    private func transaction<T: Sendable>(_ kind: Database.TransactionKind,
                                          _ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        // An unstructured task is not cancelled with the request that awaits it.
        try await Task {
            try await writerTurn.run {
                try await self.pool.writeWithoutTransaction { db in try db.beginTransaction(kind) }
                do {
                    let result = try await body(Writer(pool: self.pool))
                    try await self.pool.writeWithoutTransaction { db in try db.commit() }
                    return result
                } catch {
                    try? await self.pool.writeWithoutTransaction { db in
                        if db.isInsideTransaction { try db.rollback() }
                    }
                    throw error
                }
            }
        }.value
    }

    /// A write transaction whose statements run in one turn on the writer's queue, without
    /// suspending (``GroupCommit``'s uploads). Each turn is a hop onto GRDB's writer queue and a
    /// thread woken; under many small uploads a hop per statement cost more than SQLite's own
    /// work (`Documentation/uniti-server.md`), so a whole group takes one.
    func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (Statements) throws -> T) async throws -> T {
        // An unstructured task is not cancelled with the request that awaits it.
        try await Task {
            try await writerTurn.run {
                try await self.pool.writeWithoutTransaction { db in
                    try db.beginTransaction(.immediate)
                    do {
                        let result = try body(Statements(db: db))
                        try db.commit()
                        return result
                    } catch {
                        if db.isInsideTransaction { try? db.rollback() }
                        throw error
                    }
                }
            }
        }.value
    }

    func close() async {}

    func reclaimErasedSpace(tables: [String]) async throws {
        _ = try await writerTurn.run {
            try await self.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        }
    }

    /// Statements on one connection, each prepared once per connection (a sheet upload's
    /// statements are the same for every upload, so compiling them each time would be paid by
    /// every upload; see `Documentation/uniti-server.md`).
    struct Statements {
        let db: Database

        func rows(_ sql: SQL) throws -> [SQLRow] {
            let (text, arguments) = SQLiteDatabase.statement(sql)
            return try Row.fetchAll(db.cachedStatement(sql: text), arguments: arguments).map(SQLRow.sqlite)
        }

        func execute(_ sql: SQL) throws {
            let (text, arguments) = SQLiteDatabase.statement(sql)
            try db.cachedStatement(sql: text).execute(arguments: arguments)
        }
    }

    /// The writer connection inside an async transaction: each statement a turn on its queue.
    private struct Writer: SQLExecutor {
        let pool: DatabasePool
        var dialect: SQLDialect { .sqlite }

        func rows(_ sql: SQL) async throws -> [SQLRow] {
            try await pool.writeWithoutTransaction { db in try Statements(db: db).rows(sql) }
        }

        func execute(_ sql: SQL) async throws {
            try await pool.writeWithoutTransaction { db in try Statements(db: db).execute(sql) }
        }

        func lock(_ key: StoreLock) async throws {}
    }

    /// The statement's text with `?` placeholders and its values as GRDB arguments.
    static func statement(_ sql: SQL) -> (String, StatementArguments) {
        let (text, values) = sql.rendered(for: .sqlite)
        return (text, StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .integer(let integer): integer
            case .real(let real): real
            case .text(let text): text
            case .blob(let data): data
            case .bool(let bool): bool
            }
        }))
    }
}

/// Runs async bodies one at a time, in the order they asked (a lock that may be held across
/// suspension points, which `Mutex` may not).
final class SerialTurns: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Called when a body has to wait for another's turn to end.
    private let onWait: @Sendable () -> Void

    init(onWait: @escaping @Sendable () -> Void = {}) {
        self.onWait = onWait
    }

    func run<T>(_ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let proceed = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if proceed { continuation.resume() } else { onWait() }
        }
        defer {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiting.isEmpty else {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
