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
///   transactions (``GroupCommit``: one writer, and every commit waits for the disk) and a
///   group's statements run in one turn on the writer, each prepared once, so a statement per
///   row costs no more than SQLite's own work; on PostgreSQL an upload is one prepared
///   statement that is its own transaction (``PostgreSQLSheetInsert``), since there every
///   statement is a round trip (a shared transaction would hold several people's locks and
///   serialise the processes).
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

        /// Named as the columns, since PostgreSQL reads them from JSON by these names.
        struct SheetRow: Encodable, Sendable {
            let n: Int, client_id: String, study_id: String, questionnaire_id: String, questionnaire_version: Int
            let started_at: Double, ended_at: Double?, sheet: String, finished_at: String, is_partial: Bool, reminded_at: Double?
        }

        struct AnswerRow: Encodable, Sendable {
            let client_id: String, position: Int, label: String, value: String, number: Double?, answered_at: String
        }

        init(userId: Int64, sheets validated: [ValidatedSheet], receivedAt: Date) throws {
            var sheetRows: [SheetRow] = [], answerRows: [[AnswerRow]] = []
            for (n, row) in validated.enumerated() {
                let sheet = row.sheet, clientId = sheet.id.uuidString.lowercased()
                sheetRows.append(SheetRow(n: n, client_id: clientId, study_id: row.studyId, questionnaire_id: sheet.questionnaireID,
                                          questionnaire_version: sheet.questionnaireVersion,
                                          started_at: sheet.startedAt.date.timeIntervalSince1970,
                                          ended_at: sheet.endedAt?.date.timeIntervalSince1970, sheet: try JSONCoding.string(sheet),
                                          finished_at: (sheet.endedAt ?? sheet.startedAt).text, is_partial: sheet.isPartial,
                                          reminded_at: row.remindedAt?.timeIntervalSince1970))
                answerRows.append(try sheet.answers.keys.sorted().enumerated().map { position, label in
                    let answer = sheet.answers[label]!
                    // A whole number (most answers) is its digits; JSONCoding would write the same.
                    return AnswerRow(client_id: clientId, position: position, label: label,
                                     value: try answer.value.integer.map(String.init) ?? JSONCoding.string(answer.value),
                                     number: answer.value.number, answered_at: answer.answeredAt.text)
                })
            }
            self.userId = userId
            self.receivedAt = receivedAt
            self.sheets = validated.map(\.sheet)
            self.sheetRows = sheetRows
            self.answerRows = answerRows
        }

        /// Each sheet's outcome: stored when its client id is among those stored now, else a duplicate.
        func outcomes(stored: Set<String>) -> [AnswerSheetBatchResult.Outcome] {
            sheetRows.map { stored.contains($0.client_id) ? .stored : .duplicate }
        }
    }

    /// Stores the batch in one transaction; a client id the user already sent is reported as duplicate.
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome] {
        let upload = try SheetUpload(userId: userId, sheets: sheets, receivedAt: receivedAt)
        let outcomes = if let sheetWrites {
            try await sheetWrites.submit(upload)
        } else {
            upload.outcomes(stored: Set(try await database.prepared(try PostgreSQLSheetInsert(upload))))
        }
        // Counted once committed, for the operator's metrics (``ServerMetrics``).
        Counter(label: ServerMetrics.sheetsStored).increment(by: outcomes.count { $0 == .stored })
        return outcomes
    }

    /// SQLite: writes one upload inside a transaction, possibly shared with other uploads
    /// (``GroupCommit``): each sheet (a client id already stored is skipped), the answers of
    /// those stored now, and the comparison's totals, a statement per row.
    static func store(_ db: SQLiteDatabase.Statements, _ upload: SheetUpload) throws -> [AnswerSheetBatchResult.Outcome] {
        var stored: Set<String> = []
        for (sheet, answers) in zip(upload.sheetRows, upload.answerRows) {
            guard let id: Int64 = try db.rows("""
                INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                    started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
                VALUES (\(upload.userId), \(sheet.client_id), \(sheet.study_id), \(sheet.questionnaire_id), \(sheet.questionnaire_version),
                    \(sheet.started_at), \(sheet.ended_at), \(upload.receivedAt), \(sheet.sheet), \(sheet.finished_at), \(sheet.is_partial),
                    \(sheet.reminded_at))
                ON CONFLICT (user_id, client_id) DO NOTHING
                RETURNING id
                """).first?["id"] else { continue }
            stored.insert(sheet.client_id)
            for answer in answers {
                try db.execute("""
                    INSERT INTO answers (sheet_id, position, label, value, number, answered_at, user_id, questionnaire_id, started_at)
                    VALUES (\(id), \(answer.position), \(answer.label), \(answer.value), \(answer.number), \(answer.answered_at),
                        \(upload.userId), \(sheet.questionnaire_id), \(sheet.started_at))
                    """)
            }
        }
        for a in ComparisonSums.Addition.of(upload.sheets.filter { stored.contains($0.id.uuidString.lowercased()) }) {
            try db.execute("""
                INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
                VALUES (\(a.questionnaireId), \(a.label), \(upload.userId), \(a.total), \(a.count), \(a.firstStarted), \(a.lastStarted))
                \(raw: ComparisonSums.addToTotals)
                """)
        }
        return upload.outcomes(stored: stored)
    }
}

/// PostgreSQL: a whole upload as one statement, prepared once per connection, and its own
/// transaction. Every round trip to the database and every statement parsed anew is paid for by
/// each upload; with the sheets and their answers as the upload's two JSON documents, one text
/// serves every batch. Data-modifying CTEs are PostgreSQL's own (SQLite has none): the person's
/// sheet lock is taken (``StoreLock/person(_:_:)``; the sheets are joined with it, so it is held
/// before the first id is drawn, until the statement commits), the sheets go in (a client id
/// already stored is skipped; ids in the batch's order), then the answers of the sheets that
/// did, then the comparison's totals (``ComparisonSums``) are added to from those answers.
struct PostgreSQLSheetInsert: PostgresPreparedStatement {
    static let sql = """
        WITH locked AS (
            SELECT pg_advisory_xact_lock($5, $6)
        ), stored AS (
            INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
            SELECT $1, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, $2, sheet, finished_at, is_partial, reminded_at
            FROM json_to_recordset($3::json) AS s(n integer, client_id text, study_id text, questionnaire_id text,
                questionnaire_version integer, started_at double precision, ended_at double precision, sheet text,
                finished_at text, is_partial boolean, reminded_at double precision)
            CROSS JOIN locked
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

    let userId: Int64
    let receivedAt: Double
    /// `[{n, client_id, study_id, …}]` and `[{client_id, position, label, …}]`: the upload's rows
    /// as two JSON documents, so that the statement's text is the same for every batch.
    let sheetRows: String, answerRows: String

    init(_ upload: ServerStore.SheetUpload) throws {
        // Read by the statement only, so without ``JSONCoding``'s sorted keys, which an upload
        // would pay for in every object.
        let encoder = JSONEncoder()
        userId = upload.userId
        receivedAt = upload.receivedAt.timeIntervalSince1970
        sheetRows = String(decoding: try encoder.encode(upload.sheetRows), as: UTF8.self)
        answerRows = String(decoding: try encoder.encode(Array(upload.answerRows.joined())), as: UTF8.self)
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(userId)
        bindings.append(receivedAt)
        bindings.append(sheetRows)
        bindings.append(answerRows)
        // The lock's key as ``PostgreSQLDatabase`` takes it for ``StoreLock/person(_:_:)``.
        bindings.append(StoreLock.PersonWrites.sheets.rawValue)
        bindings.append(Int32(truncatingIfNeeded: userId))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String {
        try row.decode(String.self)
    }
}
