import Foundation
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
///   transactions (``GroupCommit``: one writer, and every commit waits for the disk), each
///   statement compiled once; on PostgreSQL each upload has its own transaction (a shared one
///   would hold several people's locks and serialise the processes), and the upload is one
///   prepared statement (``PostgreSQLSheetInsert``), since there every statement is a round trip.
extension ServerStore {
    /// One upload, encoded outside the transaction.
    struct SheetUpload: Sendable {
        struct Row: Sendable {
            let validated: ValidatedSheet
            let json: String
            /// (label, answer, value as JSON) in label order.
            let answers: [(label: String, answer: Answer, value: String)]
        }
        let userId: Int64
        let rows: [Row]
        let receivedAt: Date
    }

    /// Stores the batch in one transaction; a client id the user already sent is reported as duplicate.
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome] {
        let rows = try sheets.map { validated in
            SheetUpload.Row(validated: validated, json: try JSONCoding.string(validated.sheet),
                            answers: try validated.sheet.answers.keys.sorted().map { label in
                                let answer = validated.sheet.answers[label]!
                                return (label, answer, try JSONCoding.string(answer.value))
                            })
        }
        let upload = SheetUpload(userId: userId, rows: rows, receivedAt: receivedAt)
        if let sheetWrites { return try await sheetWrites.submit(upload) }
        let statement = try PostgreSQLSheetInsert(upload)
        return try await database.transaction { db in
            try await db.lock(.person(userId, .sheets))
            return Self.outcomes(upload, stored: Set(try await db.prepared(statement)))
        }
    }

    /// Each sheet's outcome: stored when its client id is among those stored now, else a duplicate.
    private static func outcomes(_ upload: SheetUpload, stored: Set<String>) -> [AnswerSheetBatchResult.Outcome] {
        upload.rows.map { stored.contains($0.validated.sheet.id.uuidString.lowercased()) ? .stored : .duplicate }
    }

    /// SQLite: writes one upload inside a transaction, possibly shared with other uploads
    /// (``GroupCommit``): each sheet and its answers, then the comparison's totals. Every text is
    /// the same for every upload of one questionnaire, so each statement is compiled once.
    static func store(_ db: any SQLExecutor, _ upload: SheetUpload) async throws -> [AnswerSheetBatchResult.Outcome] {
        try await db.lock(.person(upload.userId, .sheets))
        var stored: [AnswerSheet] = []
        for row in upload.rows {
            let sheet = row.validated.sheet, started = sheet.startedAt.date
            let inserted = try await db.row("""
                INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                    started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
                VALUES (\(upload.userId), \(sheet.id.uuidString.lowercased()), \(row.validated.studyId), \(sheet.questionnaireID),
                    \(sheet.questionnaireVersion), \(started), \(sheet.endedAt?.date), \(upload.receivedAt), \(row.json),
                    \((sheet.endedAt ?? sheet.startedAt).text), \(sheet.isPartial), \(row.validated.remindedAt))
                ON CONFLICT (user_id, client_id) DO NOTHING
                RETURNING id
                """)
            guard let sheetId: Int64 = try inserted?["id"] else { continue }
            if !row.answers.isEmpty {
                let answers = row.answers.enumerated().map { position, answer -> SQL in
                    """
                    (\(sheetId), \(position), \(answer.label), \(answer.value), \(answer.answer.value.number),
                     \(answer.answer.answeredAt.text), \(upload.userId), \(sheet.questionnaireID), \(started))
                    """
                }
                try await db.execute("""
                    INSERT INTO answers (sheet_id, position, label, value, number, answered_at, user_id, questionnaire_id, started_at)
                    VALUES \(SQL.joined(answers, separator: ", "))
                    """)
            }
            stored.append(sheet)
        }
        try await addToComparisonTotals(db, userId: upload.userId, stored: stored)
        return outcomes(upload, stored: Set(stored.map { $0.id.uuidString.lowercased() }))
    }
}

/// PostgreSQL: a whole upload as one statement, prepared once per connection. Every round trip
/// to the database and every statement parsed anew is paid for by each upload; with the sheets
/// and their answers as two JSON documents, one text serves every batch, whatever its size.
/// Data-modifying CTEs are PostgreSQL's own (SQLite has none): the sheets go in (a client id
/// already stored is skipped), then the answers of the sheets that did, then the comparison's
/// totals (``ComparisonSums``) are added to from those answers in the same statement. The ids
/// are taken in the batch's order.
struct PostgreSQLSheetInsert: PostgresPreparedStatement {
    static let sql = """
        WITH stored AS (
            INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
            SELECT $1, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, $2, sheet, finished_at, is_partial, reminded_at
            FROM json_to_recordset($3::json) AS s(n integer, client_id text, study_id text, questionnaire_id text,
                questionnaire_version integer, started_at double precision, ended_at double precision, sheet text,
                finished_at text, is_partial boolean, reminded_at double precision)
            ORDER BY n
            ON CONFLICT (user_id, client_id) DO NOTHING
            RETURNING id, client_id, questionnaire_id, started_at
        ), answered AS (
            INSERT INTO answers (sheet_id, position, label, value, number, answered_at, user_id, questionnaire_id, started_at)
            SELECT s.id, a.position, a.label, a.value, a.number, a.answered_at, $1, s.questionnaire_id, s.started_at
            FROM json_to_recordset($4::json) AS a(client_id text, position integer, label text, value text,
                number double precision, answered_at text)
            JOIN stored s ON s.client_id = a.client_id
            RETURNING questionnaire_id, label, number, started_at
        ), totals AS (
            INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
            SELECT questionnaire_id, label, $1, SUM(number), COUNT(*), MIN(started_at), MAX(started_at)
            FROM answered WHERE number IS NOT NULL
            GROUP BY questionnaire_id, label ORDER BY questionnaire_id, label
            \(ComparisonSums.addToTotals)
        )
        SELECT client_id FROM stored
        """

    private struct Sheet: Encodable {
        let n: Int, client_id: String, study_id: String, questionnaire_id: String, questionnaire_version: Int
        let started_at: Double, ended_at: Double?, sheet: String, finished_at: String, is_partial: Bool, reminded_at: Double?
    }

    private struct Answer: Encodable {
        let client_id: String, position: Int, label: String, value: String, number: Double?, answered_at: String
    }

    let userId: Int64
    let receivedAt: Double
    let sheets: String
    let answers: String

    init(_ upload: ServerStore.SheetUpload) throws {
        var sheets: [Sheet] = [], answers: [Answer] = []
        for (n, row) in upload.rows.enumerated() {
            let sheet = row.validated.sheet, clientId = sheet.id.uuidString.lowercased()
            sheets.append(Sheet(n: n, client_id: clientId, study_id: row.validated.studyId, questionnaire_id: sheet.questionnaireID,
                                questionnaire_version: sheet.questionnaireVersion, started_at: sheet.startedAt.date.timeIntervalSince1970,
                                ended_at: sheet.endedAt?.date.timeIntervalSince1970, sheet: row.json,
                                finished_at: (sheet.endedAt ?? sheet.startedAt).text, is_partial: sheet.isPartial,
                                reminded_at: row.validated.remindedAt?.timeIntervalSince1970))
            for (position, answer) in row.answers.enumerated() {
                answers.append(Answer(client_id: clientId, position: position, label: answer.label, value: answer.value,
                                      number: answer.answer.value.number, answered_at: answer.answer.answeredAt.text))
            }
        }
        userId = upload.userId
        receivedAt = upload.receivedAt.timeIntervalSince1970
        self.sheets = try JSONCoding.string(sheets)
        self.answers = try JSONCoding.string(answers)
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(userId)
        bindings.append(receivedAt)
        bindings.append(sheets)
        bindings.append(answers)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String {
        try row.decode(String.self)
    }
}
