import PostgresNIO

/// A store's database seen from inside one open transaction (``ServerStore/transaction(_:)``):
/// every statement runs in it, and a transaction begun through it joins it instead of nesting, so
/// the outer transaction commits or rolls back everything. This lets a change made by a concern's
/// own store code and the audit line that records it commit together, without a second copy of
/// the concern's SQL that takes a transaction from its caller.
///
/// A statement that fails aborts the whole transaction on PostgreSQL, so store code that recovers
/// from a failed statement (catching a unique violation and going on) must not run joined; the
/// audited changes (``StudyAdministration``) never do.
struct JoinedTransaction: StoreDatabase {
    let executor: any SQLExecutor
    var dialect: SQLDialect { executor.dialect }

    func rows(_ sql: SQL) async throws -> [SQLRow] { try await executor.rows(sql) }
    func execute(_ sql: SQL) async throws { try await executor.execute(sql) }
    func lock(_ key: StoreLock) async throws { try await executor.lock(key) }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await body(executor)
    }

    /// Reads in the open transaction: one state on SQLite (it holds the writer); on PostgreSQL,
    /// whose transactions read committed, each statement sees what was committed when it began,
    /// so a joined body must not rely on several reads agreeing (no audited change does).
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await body(executor)
    }

    func forEachRow(_ sql: SQL, _ body: @escaping @Sendable (SQLRow) throws -> Void) async throws {
        for row in try await executor.rows(sql) { try body(row) }
    }

    func reclaimErasedSpace(tables: [String]) async throws {
        throw StoreCorruption("reclaiming erased space cannot run inside a transaction (PostgreSQL's VACUUM refuses one)")
    }

    /// A prepared statement runs as a transaction of its own (``StoreDatabase/prepared(_:)``).
    func prepared<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] where Statement.Row: Sendable {
        throw StoreCorruption("\(Statement.self) runs as a transaction of its own and cannot join another")
    }

    /// The outer database owns the connections.
    func close() async {}
}
