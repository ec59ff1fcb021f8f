import Foundation
import GRDB
import UNITIProtocol

/// The SQLite side of the parts not yet written once (``LegacyStore``).
final class SQLiteServerStore: LegacyStore {
    let sqlite: SQLiteDatabase
    var pool: DatabasePool { sqlite.pool }
    /// Sheet uploads arrive concurrently, one small batch each; they share transactions.
    let sheetWrites: GroupCommit<SheetWrite, [AnswerSheetBatchResult.Outcome]>

    init(sqlite: SQLiteDatabase) {
        self.sqlite = sqlite
        sheetWrites = GroupCommit(writer: sqlite) { db, write in try Self.insert(db, write) }
    }
}
