import Foundation
import GRDB
import UNITIProtocol

/// Stores answer sheets as JSON with the module that owns them, for modules that have no
/// reason to keep their own table. Storing a sheet again (same id) replaces it, so a partial
/// sheet can later be completed under the same id.
public struct AnswerSheetStore: Sendable {
    let database: AppDatabase
    let clock: any WallClock

    public init(database: AppDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    public func save(_ sheet: AnswerSheet, owner: String) throws {
        try database.writer.write { db in try save(sheet, owner: owner, in: db) }
    }

    /// Stores a sheet inside the caller's transaction (so that queueing it for upload with
    /// `SheetOutbox` happens in the same one).
    public func save(_ sheet: AnswerSheet, owner: String, in db: Database) throws {
        let json = try SheetJSON.encode(sheet)
        try db.execute(sql: """
                INSERT INTO core_answer_sheets(id, owner, questionnaireID, questionnaireVersion, isPartial, endedAt, sheet, storedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET isPartial = excluded.isPartial, endedAt = excluded.endedAt,
                  sheet = excluded.sheet, storedAt = excluded.storedAt
                """, arguments: [sheet.id.uuidString, owner, sheet.questionnaireID, sheet.questionnaireVersion,
                                 sheet.isPartial, sheet.endedAt?.text, json, clock.now])
    }

    /// Sheets of an owner, optionally of one questionnaire, oldest first.
    public func sheets(owner: String, questionnaireID: String? = nil) throws -> [AnswerSheet] {
        let rows = try database.writer.read { db -> [String] in
            if let questionnaireID {
                return try String.fetchAll(db, sql: """
                    SELECT sheet FROM core_answer_sheets WHERE owner = ? AND questionnaireID = ? ORDER BY storedAt, rowid
                    """, arguments: [owner, questionnaireID])
            }
            return try String.fetchAll(db, sql: "SELECT sheet FROM core_answer_sheets WHERE owner = ? ORDER BY storedAt, rowid",
                                       arguments: [owner])
        }
        return try rows.map { try AnswerSheet.load(from: Data($0.utf8)) }
    }

    public func sheet(id: UUID) throws -> AnswerSheet? {
        let json = try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT sheet FROM core_answer_sheets WHERE id = ?", arguments: [id.uuidString])
        }
        return try json.map { try AnswerSheet.load(from: Data($0.utf8)) }
    }
}
