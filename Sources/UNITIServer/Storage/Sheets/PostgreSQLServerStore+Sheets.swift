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
            var stored: [AnswerSheet] = []
            for (validated, json, answers) in encoded {
                let sheet = validated.sheet
                let inserted = try await connection.query("""
                    INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                        started_at, ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
                    VALUES (\(userId), \(sheet.id.uuidString.lowercased()), \(validated.studyId), \(sheet.questionnaireID),
                        \(Int32(clamping: sheet.questionnaireVersion)), \(sheet.startedAt.date.timeIntervalSince1970),
                        \(sheet.endedAt?.date.timeIntervalSince1970), \(receivedAt.timeIntervalSince1970), \(json),
                        \((sheet.endedAt ?? sheet.startedAt).text), \(sheet.isPartial), \(validated.remindedAt?.timeIntervalSince1970))
                    ON CONFLICT (user_id, client_id) DO NOTHING
                    RETURNING id
                    """, logger: logger).collect()
                guard let row = inserted.first else {
                    outcomes.append(.duplicate)
                    continue
                }
                let sheetId: Int64 = try row.makeRandomAccess().value("id")
                if !answers.isEmpty {
                    try await connection.query(Self.insertAnswers(sheetId: sheetId, answers.map { ($0.label, $0.value, $0.answer) }),
                                               logger: logger)
                }
                outcomes.append(.stored)
                stored.append(sheet)
            }
            try await Self.addComparisonSums(connection, userId: userId, stored: stored, logger: logger)
            return outcomes
        }
    }

    /// One statement for all answers of a sheet: `VALUES (…), (…)` with a bind per value.
    static func insertAnswers(sheetId: Int64, _ answers: [(label: String, value: String, answer: Answer)]) -> PostgresQuery {
        var sql = "INSERT INTO answers (sheet_id, position, label, value, number, answered_at) VALUES "
        var binds = PostgresBindings(capacity: answers.count * 6)
        for (position, item) in answers.enumerated() {
            let first = position * 6
            sql += (position == 0 ? "" : ", ") + "(" + (1...6).map { "$\(first + $0)" }.joined(separator: ", ") + ")"
            binds.append(sheetId)
            binds.append(Int32(position))
            binds.append(item.label)
            binds.append(item.value)
            binds.append(item.answer.value.number)
            binds.append(item.answer.answeredAt.text)
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
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
