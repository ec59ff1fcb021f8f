import Foundation
import GRDB
import GRDBSQLite

/// The one SQLite database of a data directory (`uniti.sqlite`), opened through GRDB in WAL
/// mode, readable and writable by its owner only (0600).
///
/// Several programs may use one data directory at once (the shell in two terminals, the
/// `reminders run` daemon, a standalone program beside the host). Each process holds one
/// connection (a GRDB `DatabaseQueue`); SQLite's WAL lets their reads go on while one of them
/// writes, and a writer waits up to ``busyTimeout`` for another's transaction to end.
///
/// Opening is a read when nothing has to change: it reads which migration steps were applied
/// and runs none when all are (a command that only shows something writes nothing, and the
/// database is not fsynced). Pending steps run under the data directory's migration lock, so two
/// programs opening a new data directory at once take turns and the second finds the work done.
///
/// A database with steps of its own owners (the core, this program's modules) that this version
/// does not know was written by a newer UNITI: it is refused with a message, and nothing in it is
/// changed (checked through a read-only connection). Steps of modules this program does not have
/// are another program's (the integrated host and the standalone programs share a data
/// directory), not a newer version's, and are left alone.
public final class AppDatabase: Sendable {
    public let writer: DatabaseQueue
    public let path: String
    /// Set when the data directory could not be opened for writing (a full disk, a read-only
    /// file system) and the database was opened to be read only: what is stored can be shown,
    /// nothing can be saved (a write fails with ``StorageFailure/Kind/readOnly``).
    public let readOnlyBecause: StorageFailure.Kind?
    /// The migration sets this database was opened with, in order.
    public let migrationSets: [MigrationSet]

    public static let fileName = "uniti.sqlite"
    /// How long a write waits for another program's transaction before it gives up.
    public static let busyTimeout: TimeInterval = 10

    public init(path: String, migrationSets: [MigrationSet]) throws {
        self.path = path
        self.migrationSets = migrationSets
        let migrator = Self.migrator(for: migrationSets)
        let known = Set(migrator.migrations)
        var pending = true
        if FileManager.default.fileExists(atPath: path) {
            let applied = try Self.appliedIdentifiers(at: path)
            let owners = Set(migrationSets.map(\.owner))
            let unknown = applied.subtracting(known).filter { owners.contains(String($0.prefix { $0 != "." })) }.sorted()
            if !unknown.isEmpty {
                throw UNITIError(L("core.db.newerVersion", ["path": path, "steps": unknown.joined(separator: ", ")]))
            }
            pending = !known.isSubset(of: applied)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        do {
            writer = try DatabaseQueue(path: path, configuration: configuration)
            readOnlyBecause = nil
        } catch let error where !pending && Self.mayReadInstead(after: error) {
            // WAL needs a writable shared-memory file; without one, read the file as it is.
            readOnlyBecause = StorageFailure.kind(of: error) == .diskFull || Self.isFull(path) ? .diskFull : .readOnly
            configuration.readonly = true
            do {
                writer = try DatabaseQueue(path: Self.immutableURI(path), configuration: configuration)
            } catch {
                throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": StorageFailure.describe(error)]))
            }
        } catch {
            throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": StorageFailure.describe(error)]))
        }
        if pending {
            try migrate(with: migrator)
        }
    }

    /// Whether a failed open is one where reading the file as it is still helps (the file is
    /// there, only writing around it is impossible).
    private static func mayReadInstead(after error: Error) -> Bool {
        guard let kind = StorageFailure.kind(of: error) else { return false }
        return [.diskFull, .readOnly, .ioError, .cannotOpen].contains(kind)
    }

    /// Whether the file system holding `path` has no room left.
    private static func isFull(_ path: String) -> Bool {
        (DiskSpace(of: path)?.freeBytes ?? .max) < 64 * 1024
    }

    /// An SQLite URI that opens the file without locks or shared memory, for a file nobody can
    /// change meanwhile (its disk is full or read-only).
    private static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
    }

    /// Which steps were applied, read through a read-only connection (a database written by a
    /// newer version must be left exactly as it is). SQLite's own API is used for this one query:
    /// a GRDB queue opened and closed here would leave its dispatch queue to be torn down, which
    /// starts two threads in every process.
    private static func appliedIdentifiers(at path: String) throws -> Set<String> {
        func read(_ location: String) throws -> Set<String> {
            var connection: OpaquePointer?
            defer { sqlite3_close_v2(connection) }
            var code = sqlite3_open_v2(location, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
            guard code == SQLITE_OK else { throw failure(code, connection) }
            sqlite3_busy_timeout(connection, Int32(busyTimeout * 1000))
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            code = sqlite3_prepare_v2(connection, "SELECT identifier FROM grdb_migrations", -1, &statement, nil)
            // A database no UNITI has migrated yet (an empty file) has no ledger.
            if code == SQLITE_ERROR, String(cString: sqlite3_errmsg(connection)).contains("no such table") { return [] }
            guard code == SQLITE_OK else { throw failure(code, connection) }
            var identifiers = Set<String>()
            while true {
                code = sqlite3_step(statement)
                guard code == SQLITE_ROW else { break }
                if let text = sqlite3_column_text(statement, 0) { identifiers.insert(String(cString: text)) }
            }
            guard code == SQLITE_DONE else { throw failure(code, connection) }
            return identifiers
        }
        func failure(_ code: Int32, _ connection: OpaquePointer?) -> DatabaseError {
            DatabaseError(resultCode: ResultCode(rawValue: code), message: connection.map { String(cString: sqlite3_errmsg($0)) })
        }
        do {
            return try read(path)
        } catch let error where mayReadInstead(after: error) {
            // No shared memory can be made beside it (full disk, read-only file system).
            do { return try read(immutableURI(path)) } catch {}
            throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": StorageFailure.describe(error)]))
        } catch {
            throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": StorageFailure.describe(error)]))
        }
    }

    /// Sets WAL mode (kept in the file) and runs the pending steps, holding the data directory's
    /// migration lock: another program doing the same waits, then finds nothing left to do.
    private func migrate(with migrator: DatabaseMigrator) throws {
        let lock = DataDirectory(path: (path as NSString).deletingLastPathComponent).lock("migration")
        do {
            try lock.withLock {
                let mode = try writer.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
                guard mode == "wal" else { throw UNITIError(L("core.db.noWAL", ["path": path])) }
                try migrator.migrate(writer)
            }
        } catch let error as UNITIError {
            throw error
        } catch {
            throw UNITIError(L("core.db.cannotOpen", ["path": path, "reason": StorageFailure.describe(error)]))
        }
        Self.restrictPermissions(of: path)
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

}
