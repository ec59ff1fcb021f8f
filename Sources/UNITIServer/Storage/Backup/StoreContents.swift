import Foundation
import GRDB

/// What a store holds, in the four counts an operator checks a backup by: accounts, studies,
/// answer sheets and module records. `backup` prints them for the copy it made, `restore` for the
/// store it filled, and `restore` refuses a store where any of them is not zero.
///
/// The counts are one statement, written once for both stores; the SQLite backup reads it on a
/// plain GRDB connection (the copy is no ``StoreDatabase``: opening one would turn on WAL).
struct StoreContents: Sendable, Equatable, Decodable, CustomStringConvertible {
    var accounts: Int64
    var studies: Int64
    var sheets: Int64
    var records: Int64

    static let none = StoreContents(accounts: 0, studies: 0, sheets: 0, records: 0)

    var isEmpty: Bool { self == .none }

    /// "2 accounts, 1 study, 40 sheets, 0 records".
    var description: String {
        [(accounts, "account"), (studies, "study"), (sheets, "sheet"), (records, "record")].map { count, noun in
            let plural = noun == "study" ? "studies" : noun + "s"
            return "\(count) \(count == 1 ? noun : plural)"
        }.joined(separator: ", ")
    }

    static let query: SQL = """
        SELECT (SELECT COUNT(*) FROM users) AS accounts, (SELECT COUNT(*) FROM studies) AS studies,
               (SELECT COUNT(*) FROM answer_sheets) AS sheets, (SELECT COUNT(*) FROM module_records) AS records
        """

    init(accounts: Int64, studies: Int64, sheets: Int64, records: Int64) {
        self.accounts = accounts
        self.studies = studies
        self.sheets = sheets
        self.records = records
    }

    init(row: SQLRow?) throws {
        guard let row else { throw StoreCorruption("the counts of the store returned no row") }
        self = try row.decode(StoreContents.self)
    }

    /// The counts of a store whose schema may not exist yet (a database never served from, the
    /// target of a restore): no schema holds nothing.
    static func read(_ db: any SQLExecutor) async throws -> StoreContents {
        let schema: SQL = """
            SELECT COUNT(*) AS tables FROM \(sqlite: "sqlite_master WHERE type = 'table' AND name",
                                               postgres: "pg_tables WHERE schemaname = current_schema() AND tablename")
            IN ('users', 'studies', 'answer_sheets', 'module_records')
            """
        let tables: Int64 = try await db.row(schema)?["tables"] ?? 0
        guard tables > 0 else { return .none }
        return try StoreContents(row: try await db.row(query))
    }

    /// The counts on one GRDB connection (a SQLite file that is no ``StoreDatabase``).
    static func read(sqlite db: Database) throws -> StoreContents {
        let (text, arguments) = SQLiteDatabase.statement(query)
        return try StoreContents(row: try Row.fetchOne(db, sql: text, arguments: arguments).map(SQLRow.sqlite))
    }
}
