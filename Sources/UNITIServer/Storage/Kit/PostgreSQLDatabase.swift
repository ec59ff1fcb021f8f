import Foundation
import Logging
import Metrics
import NIOCore
import PostgresNIO
import Synchronization

/// The PostgreSQL side of the kit, for a study that outgrows one machine: several server
/// processes share one database through postgres-nio's connection pool, so whatever must hold
/// across processes is the database's job (constraints, `ON CONFLICT`, advisory locks).
final class PostgreSQLDatabase: StoreDatabase {
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>
    var dialect: SQLDialect { .postgres }
    /// Pool waits for the operator's metrics (`uniti_database_waits_total`, as SQLite's writer
    /// waits): postgres-nio keeps its pool's observer internal, so the uses of the pool are
    /// counted here, where every one passes (``leased(_:)``).
    private let pool: PoolUse

    /// Connects (the pool opens connections as needed) and brings the schema up to date; throws
    /// when the database cannot be reached or was written by a newer server. `metrics` receives
    /// the pool waits.
    init(location: StoreLocation.PostgresLocation, maximumConnections: Int, metrics: any MetricsFactory = MetricsSystem.factory,
         migrate: (PostgresClient, Logger) async throws -> Void) async throws {
        pool = PoolUse(size: maximumConnections, waits: Counter(label: ServerMetrics.databaseWaits, factory: metrics))
        var configuration: PostgresClient.Configuration
        if let socket = location.socketPath {
            configuration = .init(unixSocketPath: socket, username: location.username, password: location.password,
                                  database: location.database)
        } else {
            configuration = .init(host: location.host ?? "127.0.0.1", port: location.port, username: location.username,
                                  password: location.password, database: location.database, tls: .disable)
        }
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(10)
        // No JIT compilation: it starts above a planner cost that a comparison over 10,000
        // participants reaches, compiles anew for every statement (which took longer than the
        // statement itself) and is lost when the statement ends.
        configuration.options.additionalStartupParameters = [("jit", "off")]
        var logger = Logger(label: "uniti-server.postgres")
        logger.logLevel = .warning
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: LeaseBeforeRunFilter.wrapping(logger))
        self.client = client
        // The pool runs in its own task. A first query that comes before that task has entered
        // `run()` waits in the pool's queue until it has; postgres-nio warns of it all the same,
        // and nothing public tells when `run()` has begun, so that one warning is filtered out.
        running = Task { await client.run() }
        do {
            try await migrate(client, logger)
        } catch {
            running.cancel()
            await running.value
            throw error
        }
    }

    func rows(_ sql: SQL) async throws -> [SQLRow] {
        try await pool.leased { try await client.query(Self.query(sql), logger: logger).collect().map { .postgres($0.makeRandomAccess()) } }
    }

    func execute(_ sql: SQL) async throws {
        try await pool.leased { _ = try await client.query(Self.query(sql), logger: logger).collect() }
    }

    func lock(_ key: StoreLock) async throws {}

    func prepared<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] where Statement.Row: Sendable {
        // An unstructured task is not cancelled with the request that awaits it.
        try await Task {
            try await self.pool.leased {
                var rows: [Statement.Row] = []
                for try await row in try await self.client.execute(statement, logger: self.logger) { rows.append(row) }
                return rows
            }
        }.value
    }

    func frequentRows<Name: FrequentRead>(_ name: Name.Type, _ sql: SQL) async throws -> [SQLRow] {
        let query = Self.query(sql)
        guard FrequentReadStatement<Name>.register(query.sql) else { return try await rows(sql) }
        return try await prepared(FrequentReadStatement<Name>(bindings: query.binds)).map(SQLRow.postgres)
    }

    func forEachRow(_ sql: SQL, _ body: @escaping @Sendable (SQLRow) throws -> Void) async throws {
        // One statement is one snapshot; postgres-nio streams its rows with back pressure.
        try await pool.leased {
            try await client.withConnection { connection in
                for try await row in try await connection.query(Self.query(sql), logger: self.logger) {
                    try body(.postgres(row.makeRandomAccess()))
                }
            }
        }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let logger = self.logger
        do {
            // An unstructured task is not cancelled with the request that awaits it.
            return try await Task {
                try await self.pool.leased {
                    try await self.client.withTransaction(logger: logger) { connection in
                        try await body(Connection(connection: connection, logger: logger))
                    }
                }
            }.value
        } catch let error as PostgresTransactionError {
            // The body's own error as it was thrown (a conflict stays a conflict), else the commit's or begin's.
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }

    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction { db in
            try await db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return try await body(db)
        }
    }

    /// `VACUUM` of the tables (outside a transaction, as PostgreSQL requires): the deleted rows'
    /// tuples are pruned from the pages, not only marked dead.
    func reclaimErasedSpace(tables: [String]) async throws {
        guard !tables.isEmpty else { return }
        try await execute(SQL(raw: "VACUUM " + Set(tables).sorted().joined(separator: ", ")))
    }

    func close() async {
        running.cancel()
        await running.value
    }

    /// How many uses of the pool are under way: one that starts while every connection is taken
    /// waits for one to come back, and is counted.
    private final class PoolUse: Sendable {
        let size: Int
        let waits: Counter
        let inUse = Mutex(0)

        init(size: Int, waits: Counter) {
            self.size = size
            self.waits = waits
        }

        func leased<T>(_ body: () async throws -> T) async throws -> T {
            let busy = inUse.withLock { inUse in
                defer { inUse += 1 }
                return inUse >= size
            }
            if busy { waits.increment() }
            defer { inUse.withLock { $0 -= 1 } }
            return try await body()
        }
    }

    /// One connection inside a transaction.
    private struct Connection: SQLExecutor {
        let connection: PostgresConnection
        let logger: Logger
        var dialect: SQLDialect { .postgres }

        func rows(_ sql: SQL) async throws -> [SQLRow] {
            try await connection.query(PostgreSQLDatabase.query(sql), logger: logger).collect().map { .postgres($0.makeRandomAccess()) }
        }

        func execute(_ sql: SQL) async throws {
            try await connection.query(PostgreSQLDatabase.query(sql), logger: logger)
        }

        func lock(_ key: StoreLock) async throws {
            switch key {
            case .person(let userId, let kind):
                // Ids that agree in their low 32 bits share a lock: they only wait for each other.
                try await execute("SELECT pg_advisory_xact_lock(CAST(\(kind.rawValue) AS integer), CAST(\(Int32(truncatingIfNeeded: userId)) AS integer))")
            case .name(let name, let space):
                try await execute("SELECT pg_advisory_xact_lock(CAST(\(space.rawValue) AS integer), hashtext(\(name)))")
            }
        }
    }

    /// The statement with `$n` placeholders and its values bound.
    static func query(_ sql: SQL) -> PostgresQuery {
        let (text, values) = sql.rendered(for: .postgres)
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            case .bool(let bool): bindings.append(bool)
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: bindings)
    }
}

/// A ``FrequentRead`` as postgres-nio prepares it: once per connection, named `uniti_` and the
/// type's own name (not its full path, which runs past PostgreSQL's 63 bytes for a name).
/// postgres-nio takes a prepared statement's text from its type, so the text is kept here per
/// name, as the first call rendered it.
private struct FrequentReadStatement<Name: FrequentRead>: PostgresPreparedStatement {
    static var name: String { "uniti_\(Name.self)" }
    static var sql: String { frequentReadTexts.withLock { $0[name] } ?? "" }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRandomAccessRow { row.makeRandomAccess() }

    /// Keeps `text` as the statement's text; false when the name already has another (a read
    /// whose text varies, or two reads of one name: it then runs unprepared, as any other read).
    static func register(_ text: String) -> Bool {
        frequentReadTexts.withLock { texts in
            let kept = texts[name, default: text]
            texts[name] = kept
            assert(kept == text, "\(name) is read with more than one text")
            return kept == text
        }
    }
}

private let frequentReadTexts = Mutex<[String: String]>([:])

/// Drops postgres-nio's warning that a connection was leased before `PostgresClient.run()`,
/// which says nothing to an operator (such a lease only waits until the pool runs) and would
/// otherwise be a second line under a command's one-line error. Everything else passes.
struct LeaseBeforeRunFilter: LogHandler {
    var inner: any LogHandler

    static func wrapping(_ logger: Logger) -> Logger {
        Logger(label: logger.label, factory: { _ in LeaseBeforeRunFilter(inner: logger.handler) })
    }

    func log(event: LogEvent) {
        if event.level == .warning, "\(event.message)".hasPrefix("Trying to lease connection from `PostgresClient`, but") { return }
        inner.log(event: event)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }
}
