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

    static let columns = "id, answeredAt, utcOffset, questionnaireID, questionnaireVersion, perceived, loudness, distress, mood, arousal, stress, concentration, worstSymptom, noiseDBFS"

    /// Stores `result` and queues `sheet` (the same answers, as the server takes them).
    public func save(_ result: MomentaryResult, sheet: AnswerSheet, moduleID: String) throws {
        try database.writer.write { db in try Self.save(result, sheet: sheet, moduleID: moduleID, in: db) }
    }

    /// Stores a result and queues its sheet inside the caller's transaction.
    public static func save(_ result: MomentaryResult, sheet: AnswerSheet, moduleID: String, in db: Database) throws {
            try db.execute(sql: "INSERT INTO tyt_results(\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           arguments: StatementArguments([
                               result.id, result.answeredAt.timeIntervalSince1970, result.utcOffset,
                               result.questionnaireID, result.questionnaireVersion,
                           ] as [(any DatabaseValueConvertible)?] + result.values.map { $0 as (any DatabaseValueConvertible)? } + [result.noiseDBFS]))
            try SheetOutbox.enqueue(db, moduleID: moduleID, sheet: sheet, at: result.answeredAt)
    }

    /// Every result, oldest first.
    public func all() throws -> [MomentaryResult] {
        try fetch("SELECT \(Self.columns) FROM tyt_results ORDER BY answeredAt, rowid")
    }

    /// The latest `count` results, oldest first.
    public func latest(_ count: Int) throws -> [MomentaryResult] {
        try fetch("SELECT * FROM (SELECT \(Self.columns) FROM tyt_results ORDER BY answeredAt DESC, rowid DESC LIMIT \(count)) ORDER BY answeredAt, rowid")
    }

    private func fetch(_ sql: String) throws -> [MomentaryResult] {
        try database.writer.read { db in
            let cursor = try Row.fetchCursor(db, sql: sql)
            var results: [MomentaryResult] = []
            while let row = try cursor.next() {
                results.append(MomentaryResult(
                    id: row[0], answeredAt: Date(timeIntervalSince1970: row[1]), utcOffset: row[2],
                    questionnaireID: row[3], questionnaireVersion: row[4],
                    values: (5..<13).map { row[$0] }, noiseDBFS: row[13]))
            }
            return results
        }
    }

    /// Whether a result was saved inside the interval (for skipping and for due reminders).
    public func hasResult(in interval: DateInterval) throws -> Bool {
        try database.writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM tyt_results WHERE answeredAt >= ? AND answeredAt < ?)",
                              arguments: [interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970]) ?? false
        }
    }

    public func count() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tyt_results") ?? 0 }
    }
}
