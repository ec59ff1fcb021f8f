import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// Reads and writes `tyt_results`. A result is stored and queued for upload in one
/// transaction, so a crash cannot leave a result that never syncs or a sync of a lost result.
public struct ResultStore: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// Stores a result and queues its sheet (the same answers, as the server takes them) inside
    /// the caller's transaction.
    public static func save(_ result: MomentaryResult, sheet: AnswerSheet, in db: Database) throws {
        try result.insert(db)
        try SheetOutbox.enqueue(db, owner: .tyt, sheet: sheet, at: result.answeredAt)
    }

    /// Keeps a result that arrived from the server (from another device, or this one's own
    /// coming back): stored once, never queued again.
    static func keep(_ result: MomentaryResult, in db: Database) throws {
        try result.insert(db, onConflict: .ignore)
    }

    /// Every result, oldest first.
    public func all() throws -> [MomentaryResult] {
        try database.writer.read { db in
            try MomentaryResult.order(MomentaryResult.Columns.answeredAt, Column.rowID).fetchAll(db)
        }
    }

    /// The latest `count` results, oldest first.
    public func latest(_ count: Int) throws -> [MomentaryResult] {
        try database.writer.read { db in
            try MomentaryResult.order(MomentaryResult.Columns.answeredAt.desc, Column.rowID.desc).limit(count).fetchAll(db).reversed()
        }
    }

    /// Whether a result was saved inside the interval (for skipping and for due reminders).
    public func hasResult(in interval: DateInterval) throws -> Bool {
        try database.writer.read { db in
            try MomentaryResult
                .filter(MomentaryResult.Columns.answeredAt >= interval.start.timeIntervalSince1970
                        && MomentaryResult.Columns.answeredAt < interval.end.timeIntervalSince1970)
                .isEmpty(db) == false
        }
    }

    public func count() throws -> Int {
        try database.writer.read { db in try MomentaryResult.fetchCount(db) }
    }
}
