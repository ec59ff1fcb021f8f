import Foundation
import GRDB
import Synchronization
import UNITIProtocol

/// The default ``ServerStore``: one SQLite file through GRDB, in WAL mode so that coordinator
/// commands can read and write the same file while `serve` runs; a busy timeout makes the second
/// writer wait instead of failing.
///
/// This file opens the database; each part of ``ServerStore`` is implemented next to its tables,
/// in `Storage/<Concern>/SQLiteServerStore+<Concern>.swift`.
public final class SQLiteServerStore: ServerStore, Sendable {
    let pool: DatabasePool
    /// Decoded questionnaire versions by `id#version`. A stored version never changes (a changed
    /// definition needs a higher version), so a version once read is kept: every sheet upload
    /// needs its questionnaire, and decoding the definition each time was a large part of it.
    let questionnaireCache = Mutex<[String: QuestionnaireDocument]>([:])
    /// Sheet uploads arrive concurrently, one small batch each; they share transactions.
    let sheetWrites: GroupCommit<SheetWrite, [AnswerSheetBatchResult.Outcome]>

    /// Opens (creating if needed) the database at `path` and runs the migrations. A new database
    /// and its folder are made private (``PrivateFiles``) before SQLite opens them.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        try PrivateFiles.createFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        try PrivateFiles.createIfMissing(path)
        let pool = try DatabasePool(path: path, configuration: configuration)
        self.pool = pool
        sheetWrites = GroupCommit(writer: pool) { db, write in try Self.insert(db, write) }
        try ServerMigrations.migrator.migrate(pool)
    }
}
