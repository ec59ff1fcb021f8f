import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// Backup and restore of a SQLite store through SQLite's online backup API (GRDB's
/// `backup(to:)`). Copying the live file is not a backup: in WAL mode the newest commits are in
/// the `-wal` file, and a copy taken while the server checkpoints can be torn. The backup API
/// copies every page inside one read transaction, a snapshot as of its start, while the server
/// goes on writing to the log.
///
/// The copy is one self-contained file in rollback-journal mode (no `-wal` beside it); a server
/// opened on a restored store turns WAL on again.
enum SQLiteBackup {
    /// Copies the store at `path` to `temporary` (created 0600), checks the copy with
    /// `PRAGMA integrity_check` and returns what it holds. The caller renames it into place.
    static func backup(path: String, to temporary: String) throws -> StoreContents {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreBackup.Failure("there is no SQLite database at \(path)")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let source = try DatabasePool(path: path, configuration: configuration)
        defer { try? source.close() }
        try PrivateFiles.createIfMissing(temporary)
        let copy = try DatabaseQueue(path: temporary)
        defer { try? copy.close() }
        try source.backup(to: copy)
        return try copy.writeWithoutTransaction { db in
            // The pages carry the source's WAL flag; the copy is to be one file.
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try checkIntegrity(db, of: "the copy")
            return try StoreContents.read(sqlite: db)
        }
    }

    /// Copies the backup `file` into the store at `path` after checking it, refusing a store that
    /// holds data. Returns nothing: the caller opens the restored store (which brings its schema
    /// up to date) and counts it.
    static func restore(_ file: String, into path: String) throws {
        var readOnly = Configuration()
        readOnly.readonly = true
        let backup: DatabaseQueue
        do {
            backup = try DatabaseQueue(path: file, configuration: readOnly)
            try backup.read { db in try checkIntegrity(db, of: file) }
        } catch let error as DatabaseError {
            throw StoreBackup.Failure("\(file) is not a SQLite backup of uniti-server: \(error.message ?? "\(error)")")
        }
        defer { try? backup.close() }
        try PrivateFiles.createFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        try PrivateFiles.createIfMissing(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let target = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? target.close() }
        let found = try target.read { db -> StoreContents in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'users'") == 1 else { return .none }
            return try StoreContents.read(sqlite: db)
        }
        try StoreBackup.refuseUnlessEmpty(found, path: path)
        try backup.backup(to: target)
    }

    private static func checkIntegrity(_ db: Database, of what: String) throws {
        let verdict = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        guard verdict == ["ok"] else {
            throw StoreBackup.Failure("PRAGMA integrity_check of \(what) failed: \(verdict.prefix(3).joined(separator: "; "))")
        }
    }
}
