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
///   transactions (``GroupCommit``: one writer, and every commit waits for the disk), three
///   statements per upload; on PostgreSQL each upload has its own transaction (a shared one
///   would hold several people's locks and serialise the processes), and the upload is one
///   prepared statement (``PostgreSQLSheetInsert``), since there every statement is a round trip.
extension ServerStore {
    /// One upload, encoded outside the transaction: its sheets as rows and their answers as rows,
    /// each a JSON document that one statement reads whole (SQLite's `json_each`, PostgreSQL's
    /// `json_to_recordset`), so the statements' text is the same for every batch, whatever its
    /// size, and each is compiled once.
    struct SheetUpload: Sendable {
        let userId: Int64
        let receivedAt: Date
        /// The batch's sheets, in order, by lower-cased client id.
        let sheets: [(clientId: String, sheet: AnswerSheet)]
        /// `[{n, client_id, study_id, questionnaire_id, …}]`, the columns of `answer_sheets`.
        let sheetRows: String
        /// `[{client_id, position, label, value, number, answered_at}]`, the columns of `answers`
        /// (position in label order, value as JSON, number when numeric).
        let answerRows: String

        private struct SheetRow: Encodable {
            let n: Int, client_id: String, study_id: String, questionnaire_id: String, questionnaire_version: Int
            let started_at: Double, ended_at: Double?, sheet: String, finished_at: String, is_partial: Bool, reminded_at: Double?
        }

        private struct AnswerRow: Encodable {
            let client_id: String, position: Int, label: String, value: String, number: Double?, answered_at: String
        }

        init(userId: Int64, sheets validated: [ValidatedSheet], receivedAt: Date) throws {
            var sheetRows: [SheetRow] = [], answerRows: [AnswerRow] = []
            for (n, row) in validated.enumerated() {
                let sheet = row.sheet, clientId = sheet.id.uuidString.lowercased()
                sheetRows.append(SheetRow(n: n, client_id: clientId, study_id: row.studyId, questionnaire_id: sheet.questionnaireID,
                                          questionnaire_version: sheet.questionnaireVersion,
                                          started_at: sheet.startedAt.date.timeIntervalSince1970,
                                          ended_at: sheet.endedAt?.date.timeIntervalSince1970, sheet: try JSONCoding.string(sheet),
                                          finished_at: (sheet.endedAt ?? sheet.startedAt).text, is_partial: sheet.isPartial,
                                          reminded_at: row.remindedAt?.timeIntervalSince1970))
                for (position, label) in sheet.answers.keys.sorted().enumerated() {
                    let answer = sheet.answers[label]!
                    answerRows.append(AnswerRow(client_id: clientId, position: position, label: label,
                                                value: try JSONCoding.string(answer.value), number: answer.value.number,
                                                answered_at: answer.answeredAt.text))
                }
            }
            self.userId = userId
            self.receivedAt = receivedAt
            sheets = validated.map { ($0.sheet.id.uuidString.lowercased(), $0.sheet) }
            // Read by the statements only, so without ``JSONCoding``'s sorted keys, which an
            // upload would pay for in every object.
            let encoder = JSONEncoder()
            self.sheetRows = String(decoding: try encoder.encode(sheetRows), as: UTF8.self)
            self.answerRows = String(decoding: try encoder.encode(answerRows), as: UTF8.self)
        }

        /// Each sheet's outcome: stored when its client id is among those stored now, else a duplicate.
        func outcomes(stored: Set<String>) -> [AnswerSheetBatchResult.Outcome] {
            sheets.map { stored.contains($0.clientId) ? .stored : .duplicate }
        }
    }

    /// Stores the batch in one transaction; a client id the user already sent is reported as duplicate.
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome] {
        let upload = try SheetUpload(userId: userId, sheets: sheets, receivedAt: receivedAt)
        if let sheetWrites { return try await sheetWrites.submit(upload) }
        let statement = PostgreSQLSheetInsert(upload)
        return try await database.transaction { db in
            try await db.lock(.person(userId, .sheets))
            return upload.outcomes(stored: Set(try await db.prepared(statement)))
        }
    }

    /// SQLite: writes one upload inside a transaction, possibly shared with other uploads
    /// (``GroupCommit``), in three statements whatever the batch's size: the sheets (a client id
    /// already stored is skipped; ids in the batch's order), the answers of those stored now, and
    /// the comparison's totals.
    static func store(_ db: any SQLExecutor, _ upload: SheetUpload) async throws -> [AnswerSheetBatchResult.Outcome] {
        try await db.lock(.person(upload.userId, .sheets))
        let inserted = try await db.rows("""
            INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
            SELECT \(upload.userId), value ->> 'client_id', value ->> 'study_id', value ->> 'questionnaire_id',
                value ->> 'questionnaire_version', value ->> 'started_at', value ->> 'ended_at', \(upload.receivedAt),
                value ->> 'sheet', value ->> 'finished_at', value ->> 'is_partial', value ->> 'reminded_at'
            FROM json_each(\(upload.sheetRows)) WHERE true ORDER BY key
            ON CONFLICT (user_id, client_id) DO NOTHING
            RETURNING id, client_id
            """)
        let stored = Set(try inserted.map { try $0["client_id"] as String })
        // Every sheet stored before this statement, a duplicate's too, has a smaller id than those it
        // stored. CROSS JOIN keeps SQLite's planner from reading the new sheets by id and scanning
        // the answers' document once for each (a batch of 500 took seconds): each answer finds its
        // sheet by the unique (user_id, client_id) index instead.
        guard let first = try inserted.map({ try $0["id"] as Int64 }).min() else { return upload.outcomes(stored: stored) }
        try await db.execute("""
            INSERT INTO answers (sheet_id, position, label, value, number, answered_at, user_id, questionnaire_id, started_at)
            SELECT s.id, a.value ->> 'position', a.value ->> 'label', a.value ->> 'value', a.value ->> 'number',
                a.value ->> 'answered_at', s.user_id, s.questionnaire_id, s.started_at
            FROM json_each(\(upload.answerRows)) AS a
            CROSS JOIN answer_sheets AS s ON s.user_id = \(upload.userId) AND s.client_id = a.value ->> 'client_id'
            WHERE s.id >= \(first)
            """)
        try await addToComparisonTotals(db, userId: upload.userId, stored: upload.sheets.filter { stored.contains($0.clientId) }.map(\.sheet))
        return upload.outcomes(stored: stored)
    }
}

/// PostgreSQL: a whole upload as one statement, prepared once per connection. Every round trip
/// to the database and every statement parsed anew is paid for by each upload; with the sheets
/// and their answers as the upload's two JSON documents, one text serves every batch.
/// Data-modifying CTEs are PostgreSQL's own (SQLite has none): the sheets go in (a client id
/// already stored is skipped; ids in the batch's order), then the answers of the sheets that
/// did, then the comparison's totals (``ComparisonSums``) are added to from those answers.
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

    let upload: ServerStore.SheetUpload

    init(_ upload: ServerStore.SheetUpload) {
        self.upload = upload
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(upload.userId)
        bindings.append(upload.receivedAt.timeIntervalSince1970)
        bindings.append(upload.sheetRows)
        bindings.append(upload.answerRows)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String {
        try row.decode(String.self)
    }
}
