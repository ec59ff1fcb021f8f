import Foundation
import Metrics
import PostgresNIO
import UNITIProtocol

/// Storing uploaded sheets.
///
/// - A sheet is stored once per person and client id (`UNIQUE (user_id, client_id)` with
///   `ON CONFLICT DO NOTHING`): two uploads of the same batch at the same moment (two server
///   processes, or a retry) store it once, and each sheet is answered `stored` once at most.
/// - Its answers go in only when the sheet did, each with its sheet's participant, questionnaire
///   and start for the comparison's index, and the comparison's totals are added to in the same
///   transaction. A batch is stored whole or not at all.
/// - The writes differ by engine, since what costs differs: on SQLite, concurrent uploads share
///   transactions (``GroupCommit``: one writer, and every commit waits for the disk) whose
///   statements run in one turn on the writer; on PostgreSQL an upload is one prepared statement
///   that is its own transaction (``PostgreSQLSheetInsert``), since there every statement is a
///   round trip (a shared transaction would hold several people's locks and serialise the processes).
extension ServerStore {
    /// One upload, its rows made outside the transaction: the columns of `answer_sheets` and of
    /// `answers` for each sheet, in the batch's order.
    struct SheetUpload: Sendable {
        let userId: Int64
        let receivedAt: Date
        let sheets: [AnswerSheet]
        let sheetRows: [SheetRow]
        /// Each sheet's answers, in label order (their position).
        let answerRows: [[AnswerRow]]
        /// The SQLite write's insert of each sheet (``store(_:_:)``), its columns by name, made with
        /// the rows when asked for: outside the writer's turn, which every upload waits for (made
        /// inside it, they had cost a tenth of the uploads a second, `Scripts/bench/server`).
        let sqliteInserts: [SQL]?

        /// The columns of `answer_sheets` but the person's, the time received and the row id.
        struct SheetRow: Sendable, Equatable, StoreRecord {
            let clientId: String, studyId: String, questionnaireId: String, questionnaireVersion: Int
            let startedAt: Double, endedAt: Double?, sheet: String, finishedAt: String, isPartial: Bool

            enum CodingKeys: CodingKey, CaseIterable {
                case clientId, studyId, questionnaireId, questionnaireVersion, startedAt, endedAt, sheet, finishedAt, isPartial
            }
        }

        /// The columns of `answers` that are the answer's own; named by its sheet's client id
        /// (not a column), since the sheet has no row id yet.
        struct AnswerRow: Sendable, StoreRecord {
            let clientId: String, position: Int, label: String, value: String, number: Double?, answeredAt: String

            enum CodingKeys: CodingKey, CaseIterable {
                case clientId, position, label, value, number, answeredAt
            }
        }

        /// The rows of `validated`; with `forSQLite`, SQLite's inserts of the sheets too.
        init(userId: Int64, sheets validated: [ValidatedSheet], receivedAt: Date, forSQLite: Bool = false) throws {
            (self.userId, self.receivedAt, sheets) = (userId, receivedAt, validated.map(\.sheet))
            sheetRows = try validated.map { row in
                let sheet = row.sheet
                return SheetRow(clientId: sheet.id.uuidString.lowercased(), studyId: row.studyId, questionnaireId: sheet.questionnaireID,
                                questionnaireVersion: sheet.questionnaireVersion, startedAt: sheet.startedAt.date.timeIntervalSince1970,
                                endedAt: sheet.endedAt?.date.timeIntervalSince1970, sheet: try JSONCoding.string(sheet),
                                finishedAt: (sheet.endedAt ?? sheet.startedAt).text, isPartial: sheet.isPartial)
            }
            answerRows = try zip(sheets, sheetRows).map { sheet, row in
                try sheet.answers.keys.sorted().enumerated().map { position, label in
                    let answer = sheet.answers[label]!
                    // A whole number (most answers) is its digits; JSONCoding would write the same.
                    return AnswerRow(clientId: row.clientId, position: position, label: label,
                                     value: try answer.value.integer.map(String.init) ?? JSONCoding.string(answer.value),
                                     number: answer.value.number, answeredAt: answer.answeredAt.text)
                }
            }
            self.sqliteInserts = forSQLite ? try Self.sqliteInserts(userId: userId, receivedAt: receivedAt, sheetRows) : nil
        }

        /// The insert of each sheet, its columns by name.
        static func sqliteInserts(userId: Int64, receivedAt: Date, _ sheetRows: [SheetRow]) throws -> [SQL] {
            try sheetRows.map { sheet in
                var columns = try SQLColumns(sheet)
                columns.set("user_id", userId)
                columns.set("received_at", receivedAt)
                return "INSERT INTO answer_sheets \(insert: columns) ON CONFLICT (user_id, client_id) DO NOTHING RETURNING id"
            }
        }

        /// What became of the batch, from the rows stored now (row id and client id).
        func stored(_ rows: [(id: Int64, clientId: String)]) -> StoredBatch {
            let stored = Set(rows.map(\.clientId))
            return StoredBatch(outcomes: sheetRows.map { stored.contains($0.clientId) ? .stored : .duplicate }, ids: rows.map(\.id).sorted())
        }
    }

    /// What an upload stored: each sheet's outcome in the batch's order, and the row ids of those
    /// stored now, increasing (for ``changesCursor(userId:after:stored:)``).
    struct StoredBatch: Sendable {
        let outcomes: [AnswerSheetBatchResult.Outcome]
        let ids: [Int64]
    }

    /// Stores the batch in one transaction; a client id the user already sent is reported as duplicate.
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> StoredBatch {
        let upload = try SheetUpload(userId: userId, sheets: sheets, receivedAt: receivedAt, forSQLite: sheetWrites != nil)
        let stored = if let sheetWrites {
            try await sheetWrites.submit(upload)
        } else {
            upload.stored(try await database.prepared(PostgreSQLSheetInsert(upload: upload)))
        }
        // Counted once committed, for the operator's metrics (``ServerMetrics``).
        Counter(label: ServerMetrics.sheetsStored).increment(by: stored.ids.count)
        return stored
    }

    /// SQLite: writes one upload inside a transaction, possibly shared with other uploads
    /// (``GroupCommit``): each sheet (a client id already stored is skipped), the answers of
    /// those stored now, and the comparison's totals, a statement per row. (One multi-row
    /// statement per sheet's answers and per upload's totals was measured slower in both
    /// `Scripts/bench/sync` and `Scripts/bench/server`, and was dropped.)
    static func store(_ db: SQLiteDatabase.Statements, _ upload: SheetUpload) throws -> StoredBatch {
        var stored: [(id: Int64, clientId: String)] = []
        let inserts = try upload.sqliteInserts ?? SheetUpload.sqliteInserts(userId: upload.userId, receivedAt: upload.receivedAt, upload.sheetRows)
        for ((sheet, answers), insert) in zip(zip(upload.sheetRows, upload.answerRows), inserts) {
            guard let id: Int64 = try db.rows(insert).first?["id"] else { continue }
            stored.append((id, sheet.clientId))
            // By position, unlike the sheet: a sheet has several answers, and making their columns
            // by name (``SQLColumns``) cost a few percent of the uploads a second
            // (`Scripts/bench/server`). The last three are the sheet's, for the comparison's index;
            // the contract test `sheetRoundTrip` reads every column back by name.
            for answer in answers {
                try db.execute("""
                    INSERT INTO answers (sheet_id, position, label, value, number, answered_at, user_id, questionnaire_id, started_at)
                    VALUES (\(id), \(answer.position), \(answer.label), \(answer.value), \(answer.number), \(answer.answeredAt),
                        \(upload.userId), \(sheet.questionnaireId), \(sheet.startedAt))
                    """)
            }
        }
        let storedIds = Set(stored.map(\.clientId))
        for a in ComparisonSums.Addition.of(upload.sheets.filter { storedIds.contains($0.id.uuidString.lowercased()) }) {
            try db.execute("""
                INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
                VALUES (\(a.questionnaireId), \(a.label), \(upload.userId), \(a.total), \(a.count), \(a.firstStarted), \(a.lastStarted))
                \(raw: ComparisonSums.addToTotals)
                """)
        }
        return upload.stored(stored)
    }
}

/// PostgreSQL: a whole upload as one statement (its columns bound as arrays), prepared once per
/// connection, and its own transaction: every round trip and every statement parsed anew is paid
/// by each upload. Data-modifying CTEs are PostgreSQL's own: the person's sheet lock is taken
/// (``StoreLock/person(_:_:)``; the sheets are joined with it, so it is held before the first id
/// is drawn, until the statement commits), the sheets go in (a client id already stored is
/// skipped; ids in the batch's order), then the answers of the sheets that did, then the
/// comparison's totals (``ComparisonSums``). postgres-nio binds no optional array elements: an
/// absent time or number is sent as NaN, stored as NULL; a real NaN never gets here (encoding
/// the sheet for its row throws on one).
///
/// The one write that binds by position, PostgreSQL's own: a column of the upload is one array
/// parameter, and the `unnest(…) AS s(…)` lists name each array's column in the order of
/// ``makeBindings()``. A new column of ``ServerStore/SheetUpload/SheetRow`` (which the SQLite
/// write takes by name from its coding keys) needs its array here too, in three places: the
/// `INSERT` list, the `unnest` parameters with their names, and the bindings. The contract test
/// `uploadColumns` reads every column back on both stores.
struct PostgreSQLSheetInsert: PostgresPreparedStatement {
    static let sql = """
        WITH locked AS (
            SELECT pg_advisory_xact_lock($3, $4)
        ), stored AS (
            INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, received_at, sheet, finished_at, is_partial)
            SELECT $1, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, NULLIF(ended_at, 'NaN'), $2, sheet, finished_at, is_partial
            FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::float8[], $12::float8[],
                $13::boolean[]) WITH ORDINALITY AS s(client_id, study_id, questionnaire_id, sheet, finished_at,
                questionnaire_version, started_at, ended_at, is_partial, n)
            CROSS JOIN locked
            ORDER BY n
            ON CONFLICT (user_id, client_id) DO NOTHING
            RETURNING id, client_id, questionnaire_id, started_at
        ), answered AS (
            INSERT INTO answers (sheet_id, position, label, value, number, answered_at, user_id, questionnaire_id, started_at)
            SELECT s.id, a.position, a.label, a.value, NULLIF(a.number, 'NaN'), a.answered_at, $1, s.questionnaire_id, s.started_at
            FROM unnest($14::text[], $15::text[], $16::text[], $17::text[], $18::bigint[], $19::float8[])
                AS a(client_id, label, value, answered_at, position, number)
            JOIN stored s ON s.client_id = a.client_id
            RETURNING questionnaire_id, label, number, started_at
        ), totals AS (
            INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
            SELECT questionnaire_id, label, $1, SUM(number), COUNT(*), MIN(started_at), MAX(started_at)
            FROM answered WHERE number IS NOT NULL
            GROUP BY questionnaire_id, label ORDER BY questionnaire_id, label
            \(ComparisonSums.addToTotals)
        )
        SELECT id, client_id FROM stored
        """

    let upload: ServerStore.SheetUpload

    func makeBindings() throws -> PostgresBindings {
        typealias SheetRow = ServerStore.SheetUpload.SheetRow
        typealias AnswerRow = ServerStore.SheetUpload.AnswerRow
        let sheets = upload.sheetRows, answers = Array(upload.answerRows.joined())
        var bindings = PostgresBindings(capacity: 19)
        bindings.append(upload.userId)
        bindings.append(upload.receivedAt.timeIntervalSince1970)
        // The lock's key as ``PostgreSQLDatabase`` takes it for ``StoreLock/person(_:_:)``.
        bindings.append(StoreLock.PersonWrites.sheets.rawValue)
        bindings.append(Int32(truncatingIfNeeded: upload.userId))
        // The columns in the statement's order, $5 to $19.
        for text in [\SheetRow.clientId, \.studyId, \.questionnaireId, \.sheet, \.finishedAt] { bindings.append(sheets.map { $0[keyPath: text] }) }
        bindings.append(sheets.map(\.questionnaireVersion))
        for time in [{ $0.startedAt }, { $0.endedAt }] as [(SheetRow) -> Double?] {
            bindings.append(sheets.map { time($0) ?? .nan })
        }
        bindings.append(sheets.map(\.isPartial))
        for text in [\AnswerRow.clientId, \.label, \.value, \.answeredAt] { bindings.append(answers.map { $0[keyPath: text] }) }
        bindings.append(answers.map(\.position))
        bindings.append(answers.map { $0.number ?? .nan })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> (id: Int64, clientId: String) {
        try row.decode((Int64, String).self)
    }
}
