import Foundation
import UNITIProtocol

/// Storing uploaded sheets, written once for both stores.
///
/// - A sheet is stored once per person and client id (`UNIQUE (user_id, client_id)` with
///   `ON CONFLICT DO NOTHING`): two uploads of the same batch at the same moment (two server
///   processes, or a retry) store it once, and each sheet is answered `stored` once at most.
/// - Its answers go in only when the sheet did, each with its sheet's participant, questionnaire
///   and start for the comparison's index, and the comparison's totals are added to in the same
///   transaction (``ServerStore/addToComparisonTotals(_:userId:stored:)``).
/// - On SQLite, concurrent uploads share transactions (``GroupCommit``): one writer, and every
///   commit waits for the disk. On PostgreSQL each upload has its own transaction (a shared one
///   would hold several people's locks and serialise the processes).
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
        return try await database.transaction { db in try await Self.store(db, upload) }
    }

    /// Writes one upload inside a transaction (on SQLite possibly shared with other uploads).
    static func store(_ db: any SQLExecutor, _ upload: SheetUpload) async throws -> [AnswerSheetBatchResult.Outcome] {
        try await db.lock(.person(upload.userId, .sheets))
        var outcomes: [AnswerSheetBatchResult.Outcome] = []
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
            guard let sheetId: Int64 = try inserted?["id"] else {
                outcomes.append(.duplicate)
                continue
            }
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
            outcomes.append(.stored)
            stored.append(sheet)
        }
        try await addToComparisonTotals(db, userId: upload.userId, stored: stored)
        return outcomes
    }
}
