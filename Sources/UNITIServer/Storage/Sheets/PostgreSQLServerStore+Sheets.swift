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
extension PostgreSQLServerStore: SheetStore {
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

    static func storedSheet(_ row: PostgresRandomAccessRow) throws -> (Int64, StoredAnswerSheet) {
        (try row.value("id"), StoredAnswerSheet(sheet: try JSONCoding.decode(AnswerSheet.self, from: try row.value("sheet")),
                                                studyId: try row.value("study_id"),
                                                receivedAt: Timestamps.format(Date(timeIntervalSince1970: try row.value("received_at")))))
    }

    public func sheets(userId: Int64, offset: Int, limit: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int) {
        let total: Int64 = try await rows("SELECT COUNT(*) AS total FROM answer_sheets WHERE user_id = \(userId)")[0].value("total")
        let page = try await rows("""
            SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = \(userId)
            ORDER BY started_at DESC, id DESC LIMIT \(Int64(limit)) OFFSET \(Int64(offset))
            """).map(Self.storedSheet)
        return (page.map(\.1), Int(total))
    }

    public func sheet(userId: Int64, id: UUID) async throws -> StoredAnswerSheet? {
        try await rows("""
            SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = \(userId) AND client_id = \(id.uuidString.lowercased())
            """).first.map(Self.storedSheet)?.1
    }

    public func sheetChanges(userId: Int64, after cursor: Int64, limit: Int) async throws -> (sheets: [StoredAnswerSheet], cursor: Int64, more: Bool) {
        let rows = try await rows("""
            SELECT id, sheet, study_id, received_at FROM answer_sheets WHERE user_id = \(userId) AND id > \(cursor)
            ORDER BY id LIMIT \(Int64(limit) + 1)
            """).map(Self.storedSheet)
        let page = rows.prefix(limit)
        return (page.map(\.1), page.last?.0 ?? cursor, rows.count > limit)
    }

    public func exportSheets(studyId: String, _ body: @escaping @Sendable (ExportedSheet) throws -> Void) async throws {
        // One statement (a snapshot) whose rows postgres-nio streams with back pressure: one
        // sheet at a time in this process, however large the study.
        try await client.withConnection { connection in
            let rows = try await connection.query("""
                SELECT u.pseudonym, s.sheet, s.received_at, l.module FROM answer_sheets s JOIN users u ON u.id = s.user_id
                LEFT JOIN questionnaire_links l ON l.questionnaire_id = s.questionnaire_id
                WHERE s.study_id = \(studyId) ORDER BY u.pseudonym, s.started_at, s.id
                """, logger: logger)
            for try await (pseudonym, sheet, receivedAt, module) in rows.decode((String, String, Double, String?).self) {
                try body(ExportedSheet(participant: pseudonym, sheet: try JSONCoding.decode(AnswerSheet.self, from: sheet),
                                       receivedAt: Date(timeIntervalSince1970: receivedAt), module: module))
            }
        }
    }

    public func answeredQuestionnaireVersions(studyId: String) async throws -> [(id: String, version: Int)] {
        var versions: [(id: String, version: Int)] = []
        for try await (id, version) in try await client.query("""
            SELECT DISTINCT questionnaire_id, questionnaire_version FROM answer_sheets WHERE study_id = \(studyId)
            ORDER BY questionnaire_id, questionnaire_version
            """, logger: logger).decode((String, Int32).self) {
            versions.append((id, Int(version)))
        }
        return versions
    }
}
