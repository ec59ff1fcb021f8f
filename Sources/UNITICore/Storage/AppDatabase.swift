import Foundation
import GRDB
import GRDBSQLite

/// The one SQLite database of a data directory (`uniti.sqlite`), opened through GRDB in WAL
/// mode, readable and writable by its owner only (0600).
///
/// Opening runs every registered migration that has not run yet. A database with steps of its
/// own owners (the core, this program's modules) that this version does not know was written by
/// a newer UNITI: it is refused with a message, and nothing in it is changed. Steps of modules
/// this program does not have are another program's (the integrated host and the standalone
/// programs share a data directory), not a newer version's, and are left alone.
public final class AppDatabase: Sendable {
    public let writer: DatabasePool
    public let path: String
    /// The migration sets this database was opened with, in order.
    public let migrationSets: [MigrationSet]

    public static let fileName = "uniti.sqlite"

    public init(path: String, migrationSets: [MigrationSet]) throws {
        self.path = path
        self.migrationSets = migrationSets
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            // Keep the -wal file when the last connection closes. Otherwise every start finds
            // no WAL file and GRDB re-creates it with a small write transaction, a measurable
            // part of start-up (see README, benchmarks).
            var persist: Int32 = 1
            _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        }
        // Check for steps of a newer version through a read-only connection first: opening the
        // pool itself writes (WAL set-up), and a newer database must be left untouched.
        if FileManager.default.fileExists(atPath: path) {
            try Self.refuseNewerDatabase(at: path, known: Set(Self.migrator(for: migrationSets).migrations),
                                         owners: Set(migrationSets.map(\.owner)))
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": Self.describe(error)]))
        }
        self.writer = pool
        Self.restrictPermissions(of: path)
        try migrate()
        Self.restrictPermissions(of: path)
    }

    /// Refuses a database that has steps of `owners` this version does not know (written by a
    /// newer UNITI).
    private static func refuseNewerDatabase(at path: String, known: Set<String>, owners: Set<String>) throws {
        var configuration = Configuration()
        configuration.readonly = true
        let applied: Set<String>
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            applied = try queue.read { db in
                guard try db.tableExists("grdb_migrations") else { return [] }
                return Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
            }
            try queue.close()
        } catch {
            throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": describe(error)]))
        }
        let unknown = applied.subtracting(known)
            .filter { owners.contains(String($0.prefix { $0 != "." })) }
            .sorted()
        if !unknown.isEmpty {
            throw UNITIError(L("core.db.newerVersion", ["path": path, "steps": unknown.joined(separator: ", ")]))
        }
    }

    /// Runs the pending steps.
    private func migrate() throws {
        let migrator = Self.migrator(for: migrationSets)
        do {
            try migrator.migrate(writer)
        } catch let error as UNITIError {
            throw error
        } catch {
            throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": Self.describe(error)]))
        }
    }

    static func migrator(for sets: [MigrationSet]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for set in sets {
            for step in set.steps {
                let prefix = set.tablePrefix
                let identifier = "\(set.owner).\(step.name)"
                migrator.registerMigration(identifier) { db in
                    let before = try Self.tableNames(db)
                    try step.migrate(db)
                    let foreign = try Self.tableNames(db).subtracting(before)
                        .filter { !$0.hasPrefix(prefix) && !$0.hasPrefix("sqlite_") }  // SQLite's own, e.g. sqlite_sequence
                    if let table = foreign.sorted().first {
                        throw UNITIError("migration \(identifier) created table \(table), outside its prefix \(prefix)")
                    }
                }
            }
        }
        return migrator
    }

    static func tableNames(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
    }

    /// The steps applied so far, grouped by owner, in the order they ran.
    public func appliedSteps() throws -> [String: [String]] {
        let identifiers = try writer.read { db -> [String] in
            guard try db.tableExists("grdb_migrations") else { return [] }
            return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
        var grouped: [String: [String]] = [:]
        for identifier in identifiers {
            let parts = identifier.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            grouped[parts[0], default: []].append(parts[1])
        }
        return grouped
    }

    private static func restrictPermissions(of path: String) {
        for suffix in ["", "-wal", "-shm"] {
            chmod(path + suffix, 0o600)
        }
    }

    private static func describe(_ error: Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
