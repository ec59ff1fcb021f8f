import Foundation
import GRDB
import UNITIProtocol

/// Stores answer sheets as JSON with the owner that asked them (a module, or the shell's shared
/// baseline), for owners that have no reason to keep their own table, and the person's sheets
/// pulled from their other devices. Storing a sheet again (same id) replaces it.
public struct AnswerSheetStore: Sendable {
    let database: AppDatabase
    let clock: any WallClock

    public init(database: AppDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    public func save(_ sheet: AnswerSheet, owner: ModuleID) throws {
        try database.writer.write { db in try save(sheet, owner: owner, in: db) }
    }

    /// Stores a sheet inside the caller's transaction (so that queueing it for upload with
    /// `SheetOutbox` happens in the same one).
    public func save(_ sheet: AnswerSheet, owner: ModuleID, in db: Database) throws {
        try Self.write(sheet, owner: owner, storedAt: clock.now, replacing: true, in: db)
    }

    /// Keeps a sheet pulled from the server unless one with its id is stored already (it may be
    /// this device's own, coming back).
    public static func keepPulled(_ sheet: AnswerSheet, owner: ModuleID, in db: Database) throws {
        let stored = sheet.endedAt?.date ?? sheet.startedAt.date
        try write(sheet, owner: owner, storedAt: stored, replacing: false, in: db)
    }

    /// Whether a finished sheet with this id is stored.
    public static func isFinished(_ id: UUID, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM core_answer_sheets WHERE id = ? AND isPartial = 0", arguments: [id.uuidString]) ?? false
    }

    private static func write(_ sheet: AnswerSheet, owner: ModuleID, storedAt: Date, replacing: Bool, in db: Database) throws {
        let json = try SheetJSON.encode(sheet)
        let conflict = replacing
            ? "DO UPDATE SET isPartial = excluded.isPartial, endedAt = excluded.endedAt, sheet = excluded.sheet, storedAt = excluded.storedAt"
            : "DO NOTHING"
        try db.execute(sql: """
                INSERT INTO core_answer_sheets(id, owner, questionnaireID, questionnaireVersion, isPartial, endedAt, sheet, storedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) \(conflict)
                """, arguments: [sheet.id.uuidString, owner.rawValue, sheet.questionnaireID, sheet.questionnaireVersion,
                                 sheet.isPartial, sheet.endedAt?.text, json, storedAt])
    }

    /// Sheets of an owner, optionally of one questionnaire, oldest first.
    public func sheets(owner: ModuleID, questionnaireID: String? = nil) throws -> [AnswerSheet] {
        let rows = try database.writer.read { db -> [String] in
            if let questionnaireID {
                return try String.fetchAll(db, sql: """
                    SELECT sheet FROM core_answer_sheets WHERE owner = ? AND questionnaireID = ? ORDER BY storedAt, rowid
                    """, arguments: [owner.rawValue, questionnaireID])
            }
            return try String.fetchAll(db, sql: "SELECT sheet FROM core_answer_sheets WHERE owner = ? ORDER BY storedAt, rowid",
                                       arguments: [owner.rawValue])
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
