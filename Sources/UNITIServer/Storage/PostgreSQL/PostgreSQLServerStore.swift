import Foundation
import Logging
import PostgresNIO
import Synchronization
import UNITIProtocol

/// The PostgreSQL side of the parts not yet written once (``LegacyStore``); what follows held for
/// the whole store before the kit.
///
/// The ``ServerStore`` on PostgreSQL, for a study that outgrows one machine: several server
/// processes share one database, so everything that must hold across processes is the
/// database's job — uniqueness by constraints and `ON CONFLICT`, "newest wins" in the upsert's
/// own `WHERE`, and the pull cursors by one writer per person at a time (a transaction-scoped
/// advisory lock), so that no reader ever sees a later number before an earlier one is committed.
///
/// The schema mirrors SQLite's (same tables, columns and meaning; times as UTC seconds in
/// `double precision`, so both stores hold the same values) and has its own append-only steps
/// (``PostgreSQLMigrations``). Queries go through postgres-nio's connection pool; each part of
/// ``ServerStore`` is implemented next to its SQLite twin, in
/// `Storage/<Concern>/PostgreSQLServerStore+<Concern>.swift`.
final class PostgreSQLServerStore: LegacyStore {
    let postgres: PostgreSQLDatabase
    var client: PostgresClient { postgres.client }
    var logger: Logger { postgres.logger }
    /// Settled comparison periods and bounds, each valid while its item's version stands.
    let comparisonPeriods = SettledCache<SettledPeriod>()
    let comparisonBounds = SettledCache<SettledBound>()

    init(postgres: PostgreSQLDatabase) {
        self.postgres = postgres
    }

    // MARK: Helpers shared by the parts

    /// All rows of a query, each readable by column name.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await client.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// The closure's own error comes out as it was thrown (a conflict stays a conflict), not
    /// wrapped in postgres-nio's transaction error.
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            throw Self.unwrapped(error)
        }
    }

    /// The error that made a transaction fail: the closure's own, else the commit's or begin's.
    static func unwrapped(_ error: PostgresTransactionError) -> any Error {
        error.closureError ?? error.commitError ?? error.beginError ?? error
    }

    /// Inside a transaction: waits until no other transaction (of any server process) writes the
    /// same person's rows of `kind`, until this one ends. Numbers handed out under it therefore
    /// commit in order, which keeps the pull cursors monotonic for every reader. (Ids that agree
    /// in their low 32 bits share a lock: they only wait for each other, nothing more.)
    static func lockPerson(_ userId: Int64, _ kind: PersonLock, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(kind.rawValue), \(Int32(truncatingIfNeeded: userId)))", logger: logger)
    }

    /// The advisory lock spaces (the first key of `pg_advisory_xact_lock(int, int)`).
    enum PersonLock: Int32 {
        case sheets = 7101
        case records = 7102
        case studyPasswords = 7103
        /// Not a person's: one throttle count (`throttle_counts`; the second key is its key's `hashtext`).
        case logins = 7104
        /// Not a person's: one day snapshot of the comparison (the second key is its `hashtext`).
        case comparisonSnapshots = 7105
    }
}

extension PostgresRandomAccessRow {
    /// One column by name, decoded (`String?` for a column that may be NULL).
    func value<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try self[column].decode(T.self)
    }
}
