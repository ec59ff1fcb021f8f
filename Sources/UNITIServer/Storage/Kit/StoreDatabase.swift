import GRDB
import PostgresNIO

/// Runs statements: a store's database, or one transaction on it. Every store concern is written
/// once against this protocol and runs on SQLite (``SQLiteDatabase``) and PostgreSQL
/// (``PostgreSQLDatabase``) alike.
protocol SQLExecutor: Sendable {
    var dialect: SQLDialect { get }
    /// Every row of a query.
    func rows(_ sql: SQL) async throws -> [SQLRow]
    /// A statement whose rows are not needed.
    func execute(_ sql: SQL) async throws
    /// Inside a transaction: waits until no other transaction, of any server process, holds
    /// `key`, and keeps others waiting until this one ends. A true difference of the engines:
    /// PostgreSQL takes a transaction-scoped advisory lock; on SQLite it does nothing, since one
    /// transaction at a time writes there anyway.
    func lock(_ key: StoreLock) async throws
}

extension SQLExecutor {
    /// The first row of a query, if any.
    func row(_ sql: SQL) async throws -> SQLRow? {
        try await rows(sql).first
    }

}

/// A store's database: statements outside a transaction, and transactions.
protocol StoreDatabase: SQLExecutor {
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws (the
    /// body's own error comes out as thrown). The transaction runs to its end even when the
    /// request that started it is cancelled (a client that hangs up), so a write is never half done.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs reads that must agree with each other in one snapshot (nothing written meanwhile is seen).
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Reads a query's rows one at a time, in one snapshot, handing each to `body` as it is read
    /// (an export of any size needs the memory of one row). `body` must not use the store.
    func forEachRow(_ sql: SQL, _ body: @escaping @Sendable (SQLRow) throws -> Void) async throws
    /// After rows of a person were deleted from `tables`: has the engine drop the bytes from its
    /// files, a true difference of the engines. SQLite overwrites deleted content as it deletes
    /// (`PRAGMA secure_delete`, set on every connection) and here moves the log into the database
    /// and empties it (a `TRUNCATE` checkpoint), so the files hold none of the deleted values.
    /// PostgreSQL vacuums the tables, which prunes the dead rows from their pages; see
    /// `Documentation/uniti-server.md` ("Deletion") for what its write-ahead log keeps.
    func reclaimErasedSpace(tables: [String]) async throws
    /// Ends the connections (the PostgreSQL pool); nothing to do for SQLite.
    func close() async
    /// PostgreSQL only, a true difference of the engines: runs a statement that postgres-nio
    /// prepares once per connection (parsed and planned once, not per call), as a transaction of
    /// its own that runs to its end even when the request is cancelled. SQLite has no use for
    /// it: it reuses each statement anyway (``SQLiteDatabase``).
    func prepared<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] where Statement.Row: Sendable
    /// The rows of a read that (nearly) every request makes, such as its session: ``rows(_:)``,
    /// except that PostgreSQL plans it once per connection, named by `Name`; planning such a
    /// small read took PostgreSQL five times as long as running it. `sql` must have the same text
    /// at every call (only its values differ). SQLite reuses every statement anyway.
    func frequentRows<Name: FrequentRead>(_ name: Name.Type, _ sql: SQL) async throws -> [SQLRow]
}

/// Names a read for ``StoreDatabase/frequentRows(_:_:)``.
protocol FrequentRead {}

extension StoreDatabase {
    func prepared<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] where Statement.Row: Sendable {
        throw StoreCorruption("\(Statement.self) is a PostgreSQL statement, run on \(dialect)")
    }

    func frequentRows<Name: FrequentRead>(_ name: Name.Type, _ sql: SQL) async throws -> [SQLRow] {
        try await rows(sql)
    }

    /// The rows of one statement that writes (`… RETURNING`), in a transaction of its own.
    func rowsWritten(_ sql: SQL) async throws -> [SQLRow] {
        try await transaction { try await $0.rows(sql) }
    }
}

/// The keys of ``SQLExecutor/lock(_:)``: one per person and kind of write, or one per name.
enum StoreLock: Sendable {
    /// Writes of a person's sheets, records or study-password counts: their sequence numbers
    /// commit in order, so a pull cursor never passes a number still to be committed.
    case person(Int64, PersonWrites)
    /// One name's throttle count (a login, an address).
    case name(String, NameSpace)

    enum PersonWrites: Int32, Sendable {
        case sheets = 7101
        case records = 7102
        case studyPasswords = 7103
    }

    enum NameSpace: Int32, Sendable {
        /// One throttle count (`throttle_counts`).
        case throttles = 7104
        /// Imports of one questionnaire id (two coordinators at once).
        case questionnaireImports = 7106
        /// Changes of one study's team (two owners stepping down at once leave one owner).
        case studyTeams = 7107
        /// Folding the day tallies' changes (``ServerStore/foldDayTallies()``): two folds at once
        /// would add to the same days in different orders.
        case dayTallies = 7108
        /// Randomising in one study (``ServerStore/randomise(studyId:userId:pseudonym:levels:actor:now:)``):
        /// each allocation follows from all the allocations before it.
        case allocations = 7109
    }
}

/// Rows that break a rule the store keeps (a bug, or a database edited by hand).
package struct StoreCorruption: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// What the engines report in their own words, told apart where a concern must react.
enum SQLFailure {
    /// A unique constraint refused a row (SQLite's `SQLITE_CONSTRAINT_UNIQUE` or primary key,
    /// PostgreSQL's SQLSTATE 23505): two writers raced for one key.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError {
            return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
        }
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] == "23505" }
        return false
    }
}
