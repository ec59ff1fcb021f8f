import Foundation
import PostgresNIO
import UNITIProtocol

/// ``SheetStore`` on PostgreSQL: the twin of `SQLiteServerStore+Sheets.swift`, safe with
/// several server processes.
///
/// - A sheet is stored once per person and client id (`UNIQUE (user_id, client_id)` with
///   `ON CONFLICT DO NOTHING`): two processes receiving the same batch at the same moment store
///   it once, and both answer with one `stored` and one `duplicate` per sheet at most.
/// - The changes cursor is the sheet's id. Ids come from one sequence for everyone, but one
///   transaction at a time stores a person's sheets (``PostgreSQLServerStore/lockPerson(_:_:on:logger:)``),
///   taking the lock before its first id: so a person's ids commit in increasing order, and a
///   reader past id n never finds a smaller id of that person appearing later.
extension PostgreSQLServerStore {
    public func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome] {
        let encoded = try sheets.map { validated in
            (validated, try JSONCoding.string(validated.sheet), try validated.sheet.answers.keys.sorted().map { label in
                let answer = validated.sheet.answers[label]!
                return (label: label, answer: answer, value: try JSONCoding.string(answer.value))
            })
        }
        return try await transaction { connection in
            try await Self.lockPerson(userId, .sheets, on: connection, logger: logger)
            var outcomes: [AnswerSheetBatchResult.Outcome] = []
            var stored: [(sheetId: Int64, sheet: AnswerSheet)] = []
            for (validated, json, answers) in encoded {
                let statement = StoreSheet(userId: userId, validated: validated, json: json, receivedAt: receivedAt, answers: answers)
                var inserted: Int64?
                for try await id in try await connection.execute(statement, logger: logger) { inserted = id }
                guard let sheetId = inserted else {
                    outcomes.append(.duplicate)
                    continue
                }
                outcomes.append(.stored)
                stored.append((sheetId, validated.sheet))
            }
            try await Self.addComparisonSums(connection, userId: userId, stored: stored, receivedAt: receivedAt, logger: logger)
            return outcomes
        }
    }

    /// A sheet and its answers in one round trip, prepared once per connection: the answers go
    /// in only when the sheet did (a duplicate inserts nothing and returns no row).
    struct StoreSheet: PostgresPreparedStatement {
        typealias Row = Int64
        static let sql = """
            WITH sheet AS (
                INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                    started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                ON CONFLICT (user_id, client_id) DO NOTHING
                RETURNING id
            ), answer AS (
                INSERT INTO answers (sheet_id, position, label, value, number, answered_at)
                SELECT sheet.id, a.position, a.label, a.value, CASE WHEN a.numeric THEN a.number END, a.answered_at
                FROM sheet, unnest($13::int4[], $14::text[], $15::text[], $16::bool[], $17::float8[], $18::text[])
                    AS a (position, label, value, numeric, number, answered_at)
            )
            SELECT id FROM sheet
            """

        let userId: Int64
        let validated: ValidatedSheet
        let json: String
        let receivedAt: Date
        let answers: [(label: String, answer: Answer, value: String)]

        func makeBindings() throws -> PostgresBindings {
            let sheet = validated.sheet
            var binds = PostgresBindings(capacity: 18)
            binds.append(userId)
            binds.append(sheet.id.uuidString.lowercased())
            binds.append(validated.studyId)
            binds.append(sheet.questionnaireID)
            binds.append(Int32(clamping: sheet.questionnaireVersion))
            binds.append(sheet.startedAt.date.timeIntervalSince1970)
            binds.append(sheet.endedAt?.date.timeIntervalSince1970)
            binds.append(receivedAt.timeIntervalSince1970)
            binds.append(json)
            binds.append((sheet.endedAt ?? sheet.startedAt).text)
            binds.append(sheet.isPartial)
            binds.append(validated.remindedAt?.timeIntervalSince1970)
            // Arrays hold no NULL: a flag says which answers are numbers.
            binds.append(answers.indices.map { Int32($0) })
            binds.append(answers.map(\.label))
            binds.append(answers.map(\.value))
            binds.append(answers.map { $0.answer.value.number != nil })
            binds.append(answers.map { $0.answer.value.number ?? 0 })
            binds.append(answers.map(\.answer.answeredAt.text))
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 {
            try row.decode(Int64.self)
        }
    }
}
