import Foundation
import PostgresNIO
import UNITIProtocol

/// The comparison's running sums on PostgreSQL: the twin of
/// `SQLiteServerStore+ComparisonSums.swift`. Increments are added with `ON CONFLICT … DO UPDATE
/// SET total = total + excluded.total`, which PostgreSQL applies under the row's lock, so uploads
/// for one person from several processes never lose one (they also hold the person's sheet lock).
extension PostgreSQLServerStore {
    /// The UTC day of `answer_sheets.started_at`, as ``ComparisonSums/day(of:)`` computes it.
    static let comparisonDaySQL = "(trunc(s.started_at / 86400)::bigint - (s.started_at < trunc(s.started_at / 86400) * 86400)::int)"

    /// Fills both tables from every stored answer (`maintenance rebuild-comparison`; the migration
    /// `pg4` keeps its own frozen copy, as a shipped step never changes).
    static let comparisonFillSQL = ComparisonSums.fillSQL(day: comparisonDaySQL)

    /// Adds the numeric answers of sheets just stored to the sums, in the storing transaction:
    /// one statement for the totals and one for the days per ``upsertRowsPerStatement`` items.
    static func addComparisonSums(_ connection: PostgresConnection, userId: Int64, stored sheets: [AnswerSheet],
                                  logger: Logger) async throws {
        // Sorted, so two transactions touching the same rows lock them in the same order.
        let increments = ComparisonSums.increments(of: sheets).sorted { ($0.key.label, $0.key.day ?? -1) < ($1.key.label, $1.key.day ?? -1) }
        try await upsertSums(connection, table: "comparison_totals", hasDay: false,
                             increments.filter { $0.key.day == nil }, userId: userId, logger: logger)
        try await upsertSums(connection, table: "comparison_days", hasDay: true,
                             increments.filter { $0.key.day != nil }, userId: userId, logger: logger)
    }

    /// Rows per multi-row upsert: six binds each keeps a statement far below PostgreSQL's 65,535
    /// parameters, whatever a batch from a device that was offline for a year holds.
    static let upsertRowsPerStatement = 1_000

    private static func upsertSums(_ connection: PostgresConnection, table: String, hasDay: Bool,
                                   _ increments: [(key: ComparisonSums.Increment, value: (total: Double, count: Int))],
                                   userId: Int64, logger: Logger) async throws {
        let columns = hasDay ? ["questionnaire_id", "label", "day", "user_id", "total", "count"]
                             : ["questionnaire_id", "label", "user_id", "total", "count"]
        let conflict = columns.dropLast(2).joined(separator: ", ")
        for start in stride(from: 0, to: increments.count, by: upsertRowsPerStatement) {
            let chunk = increments[start..<min(start + upsertRowsPerStatement, increments.count)]
            var binds = PostgresBindings(capacity: chunk.count * columns.count)
            var tuples: [String] = []
            for (key, sum) in chunk {
                tuples.append("(" + (1...columns.count).map { "$\(binds.count + $0)" }.joined(separator: ", ") + ")")
                binds.append(key.questionnaireId)
                binds.append(key.label)
                if hasDay { binds.append(key.day ?? 0) }
                binds.append(userId)
                binds.append(sum.total)
                binds.append(Int64(sum.count))
            }
            let sql = """
                INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))
                ON CONFLICT (\(conflict)) DO UPDATE
                SET total = \(table).total + excluded.total, count = \(table).count + excluded.count
                """
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        }
    }

    public func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double] {
        // One snapshot: the totals and the days taken away from them must see the same sheets.
        try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var sums = ComparisonSums.Accumulator()
            func read(_ query: PostgresQuery, subtracting: Bool = false) async throws {
                for try await (userId, total, count) in try await connection.query(query, logger: logger).decode((Int64, Double, Int64).self) {
                    if subtracting {
                        sums.subtract(userId: userId, total: total, count: Int(count))
                    } else {
                        sums.add(userId: userId, total: total, count: Int(count))
                    }
                }
            }
            func totals() async throws {
                try await read("""
                    SELECT x.user_id, x.total, x.count FROM comparison_totals x
                    JOIN memberships m ON m.study_id = \(studyId) AND m.user_id = x.user_id AND m.status = 'member'
                    WHERE x.questionnaire_id = \(questionnaireId) AND x.label = \(label)
                    """)
            }
            func days(_ lower: Int64?, _ upper: Int64?, subtracting: Bool = false) async throws {
                try await read("""
                    SELECT x.user_id, SUM(x.total)::float8, SUM(x.count)::bigint FROM comparison_days x
                    JOIN memberships m ON m.study_id = \(studyId) AND m.user_id = x.user_id AND m.status = 'member'
                    WHERE x.questionnaire_id = \(questionnaireId) AND x.label = \(label)
                      AND (\(lower)::bigint IS NULL OR x.day >= \(lower)) AND (\(upper)::bigint IS NULL OR x.day < \(upper))
                    GROUP BY x.user_id
                    """, subtracting: subtracting)
            }
            guard let window = ComparisonSums.Window(from: from, to: to) else {
                try await totals()
                return sums.means
            }
            if let range = window.days {
                var stored: ClosedRange<Int64>?
                for try await (first, last) in try await connection.query("""
                    SELECT MIN(day), MAX(day) FROM comparison_days WHERE questionnaire_id = \(questionnaireId) AND label = \(label)
                    """, logger: logger).decode((Int64?, Int64?).self) {
                    if let first, let last { stored = first...last }
                }
                switch ComparisonSums.DayRead(range, stored: stored) {
                case .nothing:
                    break
                case .inside(let lower, let upper):
                    try await days(lower, upper)
                case .totalsMinus(let before, let from):
                    try await totals()
                    if let before { try await days(nil, before, subtracting: true) }
                    if let from { try await days(from, nil, subtracting: true) }
                }
            }
            for edge in window.edges {
                try await read("""
                    SELECT x.user_id, SUM(a.number)::float8, COUNT(*)::bigint FROM answers a JOIN answer_sheets x ON x.id = a.sheet_id
                    JOIN memberships m ON m.study_id = \(studyId) AND m.user_id = x.user_id AND m.status = 'member'
                    WHERE x.questionnaire_id = \(questionnaireId) AND a.label = \(label) AND a.number IS NOT NULL
                      AND x.started_at >= \(edge.start) AND x.started_at < \(edge.end)
                    GROUP BY x.user_id
                    """)
            }
            return sums.means
        }
    }

    public func rebuildComparisonSums() async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM comparison_totals", logger: logger)
            try await connection.query("DELETE FROM comparison_days", logger: logger)
            for statement in PostgreSQLMigrations.statements(Self.comparisonFillSQL + ";\n") {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }
}
