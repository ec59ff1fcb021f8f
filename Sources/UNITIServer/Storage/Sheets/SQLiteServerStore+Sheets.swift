import Foundation
import GRDB
import UNITIProtocol

/// The tables behind ``SheetStore`` (steps of ``ServerMigrations``; never edit a shipped step).
enum SheetSchema {
    /// `v1-sheets`: the sheets as sent, and their answers one per row for the aggregates.
    /// `answer_sheets.id` (AUTOINCREMENT, so never reused) is the sequence of ``SheetStore/sheetChanges(userId:after:limit:)``.
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE answer_sheets (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                client_id TEXT NOT NULL,
                study_id TEXT NOT NULL,
                questionnaire_id TEXT NOT NULL,
                questionnaire_version INTEGER NOT NULL,
                started_at REAL NOT NULL,
                ended_at REAL,
                received_at REAL NOT NULL,
                sheet TEXT NOT NULL,
                UNIQUE (user_id, client_id)
            );
            CREATE TABLE answers (
                sheet_id INTEGER NOT NULL REFERENCES answer_sheets(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                label TEXT NOT NULL,
                value TEXT NOT NULL,
                number REAL,
                answered_at TEXT NOT NULL,
                PRIMARY KEY (sheet_id, position)
            );
            CREATE INDEX answers_label ON answers(label);
            CREATE INDEX sheets_questionnaire ON answer_sheets(questionnaire_id, started_at);
            """)
    }

    /// `v3-answer-sheets-by-user`: one person's sheets in sequence order without reading everyone's
    /// (the changes route; the index holds the row id, so `user_id = ? AND id > ? ORDER BY id` is a range).
    static func v3(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX answer_sheets_user ON answer_sheets(user_id)")
    }

    /// `v5-sheet-reward-times`: what Track Your Hearing rewards read of a sheet, so that they need
    /// not decode every sheet: `finished_at`, the sheet's `endedAt` else `startedAt` as sent (ISO
    /// 8601 with the person's offset, which decides the local day); `is_partial`; `reminded_at`
    /// (UTC seconds), the reminder that prompted the sheet when it is possible, else NULL
    /// (``SheetValidation/reminderForRewards(_:)``; the sheet's JSON keeps what was sent).
    /// Sheets stored before get them from their JSON.
    static func v5(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE answer_sheets ADD COLUMN finished_at TEXT;
            ALTER TABLE answer_sheets ADD COLUMN is_partial INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE answer_sheets ADD COLUMN reminded_at REAL;
            UPDATE answer_sheets SET
                finished_at = COALESCE(json_extract(sheet, '$.endedAt'), json_extract(sheet, '$.startedAt')),
                is_partial = COALESCE(json_extract(sheet, '$.isPartial'), 0);
            """)
        // Only sheets sent since `remindedAt` exists have one; the limit of 300 s is this step's,
        // written out so that the step never changes.
        let reminded = try Row.fetchAll(db, sql: """
            SELECT id, started_at, json_extract(sheet, '$.remindedAt') AS reminded FROM answer_sheets
            WHERE json_extract(sheet, '$.remindedAt') IS NOT NULL
            """)
        for row in reminded {
            let startedAt: Double = row["started_at"]
            guard let text: String = row["reminded"], let time = OffsetTimestamp(parsing: text),
                  time.date.timeIntervalSince1970 <= startedAt + 300 else { continue }
            try db.execute(sql: "UPDATE answer_sheets SET reminded_at = ? WHERE id = ?",
                           arguments: [time.date.timeIntervalSince1970, row["id"] as Int64])
        }
    }
}

/// A stored sheet as its owner reads it back, with its place in the sequence.
struct StoredSheetRow: FetchableRecord {
    var sequence: Int64
    var stored: StoredAnswerSheet

    init(row: Row) throws {
        sequence = row["id"]
        stored = StoredAnswerSheet(sheet: try JSONCoding.decode(AnswerSheet.self, from: row["sheet"]), studyId: row["study_id"],
                                   receivedAt: Timestamps.format(Date(timeIntervalSince1970: row["received_at"])))
    }
}

extension SQLiteServerStore: SheetStore {
    /// One upload's sheets, encoded outside the transaction.
    struct SheetWrite: Sendable {
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

    public func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome] {
        let rows = try sheets.map { validated in
            SheetWrite.Row(validated: validated, json: try JSONCoding.string(validated.sheet),
                           answers: try validated.sheet.answers.keys.sorted().map { label in
                               let answer = validated.sheet.answers[label]!
                               return (label, answer, try JSONCoding.string(answer.value))
                           })
        }
        return try await sheetWrites.submit(SheetWrite(userId: userId, rows: rows, receivedAt: receivedAt))
    }

    /// Writes one upload inside a (possibly shared) transaction of ``GroupCommit``.
    static func insert(_ db: Database, _ write: SheetWrite) throws -> [AnswerSheetBatchResult.Outcome] {
        var outcomes: [AnswerSheetBatchResult.Outcome] = []
        var stored: [(sheetId: Int64, sheet: AnswerSheet)] = []
        let insertSheet = try db.cachedStatement(sql: """
            INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
            VALUES (:userId, :clientId, :studyId, :questionnaireId, :questionnaireVersion,
                :startedAt, :endedAt, :receivedAt, :sheet, :finishedAt, :isPartial, :remindedAt)
            ON CONFLICT (user_id, client_id) DO NOTHING
            """)
        let insertAnswer = try db.cachedStatement(sql: """
            INSERT INTO answers (sheet_id, position, label, value, number, answered_at)
            VALUES (:sheetId, :position, :label, :value, :number, :answeredAt)
            """)
        for row in write.rows {
            let sheet = row.validated.sheet
            try insertSheet.execute(arguments: [
                "userId": write.userId, "clientId": sheet.id.uuidString.lowercased(), "studyId": row.validated.studyId,
                "questionnaireId": sheet.questionnaireID, "questionnaireVersion": sheet.questionnaireVersion,
                "startedAt": sheet.startedAt.date.timeIntervalSince1970, "endedAt": sheet.endedAt?.date.timeIntervalSince1970,
                "receivedAt": write.receivedAt.timeIntervalSince1970, "sheet": row.json,
                "finishedAt": (sheet.endedAt ?? sheet.startedAt).text, "isPartial": sheet.isPartial,
                "remindedAt": row.validated.remindedAt?.timeIntervalSince1970,
            ])
            guard db.changesCount > 0 else {
                outcomes.append(.duplicate)
                continue
            }
            let sheetId = db.lastInsertedRowID
            for (position, answer) in row.answers.enumerated() {
                try insertAnswer.execute(arguments: [
                    "sheetId": sheetId, "position": position, "label": answer.label, "value": answer.value,
                    "number": answer.answer.value.number, "answeredAt": answer.answer.answeredAt.text,
                ])
            }
            outcomes.append(.stored)
            stored.append((sheetId, sheet))
        }
        try addComparisonSums(db, userId: write.userId, stored: stored, receivedAt: write.receivedAt)
        return outcomes
    }

    public func sheets(userId: Int64, offset: Int, limit: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int) {
        try await pool.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM answer_sheets WHERE user_id = ?", arguments: [userId]) ?? 0
            let rows = try StoredSheetRow.fetchAll(db, sql: """
                SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = ?
                ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?
                """, arguments: [userId, limit, offset])
            return (rows.map(\.stored), total)
        }
    }

    public func sheet(userId: Int64, id: UUID) async throws -> StoredAnswerSheet? {
        try await pool.read { db in
            try StoredSheetRow.fetchOne(db, sql: "SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = ? AND client_id = ?",
                                        arguments: [userId, id.uuidString.lowercased()])?.stored
        }
    }

    public func sheetChanges(userId: Int64, after cursor: Int64, limit: Int) async throws -> (sheets: [StoredAnswerSheet], cursor: Int64, more: Bool) {
        try await pool.read { db in
            // One writer assigns the ids in commit order, so everything below the last id read is final.
            let rows = try StoredSheetRow.fetchAll(db, sql: """
                SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = ? AND id > ?
                ORDER BY id LIMIT ?
                """, arguments: [userId, cursor, limit + 1])
            let page = rows.prefix(limit)
            return (page.map(\.stored), page.last?.sequence ?? cursor, rows.count > limit)
        }
    }

    public func exportSheets(studyId: String, _ body: @escaping @Sendable (ExportedSheet) throws -> Void) async throws {
        // One read transaction: a snapshot, whatever is stored meanwhile; a cursor: one row at a time.
        try await pool.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT u.pseudonym, s.sheet, s.received_at, l.module FROM answer_sheets s JOIN users u ON u.id = s.user_id
                LEFT JOIN questionnaire_links l ON l.questionnaire_id = s.questionnaire_id
                WHERE s.study_id = ? ORDER BY u.pseudonym, s.started_at, s.id
                """, arguments: [studyId])
            while let row = try rows.next() {
                try body(ExportedSheet(participant: row["pseudonym"], sheet: try JSONCoding.decode(AnswerSheet.self, from: row["sheet"]),
                                       receivedAt: Date(timeIntervalSince1970: row["received_at"]), module: row["module"]))
            }
        }
    }

    public func answeredQuestionnaireVersions(studyId: String) async throws -> [(id: String, version: Int)] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT DISTINCT questionnaire_id, questionnaire_version FROM answer_sheets WHERE study_id = ?
                ORDER BY questionnaire_id, questionnaire_version
                """, arguments: [studyId]).map { ($0["questionnaire_id"], $0["questionnaire_version"]) }
        }
    }
}
