import Foundation
import GRDB
import UNITIProtocol

/// Records and answer sheets pulled from the server that this program cannot apply yet: those
/// of modules it does not have (a standalone program syncing the whole person's data) and those
/// a newer version of a module wrote. They are kept, newest version per record, and delivered
/// when a program that can apply them opens the data directory (``deliver(router:sheets:in:)``),
/// so the data directory is complete whichever program synced it.
public enum ParkedRecords {
    /// Keeps a record aside, unless a newer version of it is kept already.
    static func park(_ record: ModuleRecord, reason: String, in db: Database) throws {
        let updated = OffsetTimestamp(parsing: record.updatedAt)?.date.timeIntervalSince1970 ?? 0
        try db.execute(sql: """
            INSERT INTO core_parked_records(owner, clientID, updatedAt, record, reason) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(owner, clientID) DO UPDATE SET updatedAt = excluded.updatedAt, record = excluded.record,
                reason = excluded.reason
            WHERE excluded.updatedAt >= core_parked_records.updatedAt
            """, arguments: [record.moduleId, record.clientId, updated, try APIClient.encoder.encode(record), reason])
    }

    /// Keeps a sheet aside for an owner this program does not have.
    static func park(_ sheet: AnswerSheet, owner: ModuleID, in db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO core_parked_sheets(id, owner, sheet) VALUES (?, ?, ?)",
                       arguments: [sheet.id.uuidString, owner.rawValue, try APIClient.encoder.encode(sheet)])
    }

    /// Whether anything is parked for one of `owners` (a read only: cheap enough for every start).
    public static func hasItems(for owners: Set<ModuleID>, in db: Database) throws -> Bool {
        let parked = Set(try String.fetchAll(db, sql: """
            SELECT DISTINCT owner FROM core_parked_records UNION SELECT DISTINCT owner FROM core_parked_sheets
            """))
        return !parked.isDisjoint(with: owners.map(\.rawValue))
    }

    /// Applies what a program of `modules` can apply of what is parked, when anything is: a read
    /// only when nothing waits for these modules (so it costs nothing at start or per sync), one
    /// write transaction otherwise. Used when a program opens the data directory and by sync.
    @discardableResult
    public static func deliverPending(for modules: [any UNITIModule], in database: AppDatabase) throws -> Int {
        let owners = RecordRouter.owners(of: modules)
        guard try database.writer.read({ db in try hasItems(for: owners, in: db) }) else { return 0 }
        let router = try RecordRouter(modules: modules)
        let sheets = SheetRouter(modules: modules)
        return try database.writer.write { db in try deliver(router: router, sheets: sheets, in: db) }
    }

    /// Applies what this program can now apply and removes it from the parking; returns how many
    /// records and sheets were delivered. A record that still cannot be applied stays.
    @discardableResult
    public static func deliver(router: RecordRouter, sheets: SheetRouter, in db: Database) throws -> Int {
        let owners = router.owners.map(\.rawValue)
        let marks = owners.map { _ in "?" }.joined(separator: ",")
        var delivered = 0
        let records = try Row.fetchAll(db, sql: "SELECT owner, clientID, record FROM core_parked_records WHERE owner IN (\(marks))",
                                       arguments: StatementArguments(owners))
        for row in records {
            let data: Data = row["record"]
            guard let record = try? APIClient.decoder.decode(ModuleRecord.self, from: data) else { continue }
            // Parking anew (still not applicable) replaces the row with itself; only an applied one goes.
            if try router.apply(record, in: db) == .applied {
                try db.execute(sql: "DELETE FROM core_parked_records WHERE owner = ? AND clientID = ?",
                               arguments: [row["owner"] as String, row["clientID"] as String])
                delivered += 1
            }
        }
        let parkedSheets = try Row.fetchAll(db, sql: "SELECT id, sheet FROM core_parked_sheets WHERE owner IN (\(marks))",
                                            arguments: StatementArguments(owners))
        for row in parkedSheets {
            let data: Data = row["sheet"]
            guard let sheet = try? APIClient.decoder.decode(AnswerSheet.self, from: data) else { continue }
            try sheets.keep(sheet, in: db)
            try db.execute(sql: "DELETE FROM core_parked_sheets WHERE id = ?", arguments: [row["id"] as String])
            delivered += 1
        }
        return delivered
    }

    /// How many records and sheets are parked, for `sync --status`.
    public static func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM core_parked_records) + (SELECT COUNT(*) FROM core_parked_sheets)") ?? 0
    }
}
