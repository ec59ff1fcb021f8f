import Foundation
import GRDB
import UNITIProtocol


extension SQLiteServerStore {
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
}
