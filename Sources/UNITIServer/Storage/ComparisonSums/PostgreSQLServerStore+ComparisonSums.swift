import Foundation
import PostgresNIO
import UNITIProtocol

/// The comparison's running sums on PostgreSQL: the twin of
/// `SQLiteServerStore+ComparisonSums.swift`. A batch's sums are one statement, whatever its size
/// (the entries travel as five arrays). One transaction at a time stores a person's sheets (the
/// person's sheet lock), so the running rows of one person never see two writers.
extension PostgreSQLServerStore {
    /// Adds the numeric answers of sheets just stored to the sums, in the storing transaction.
    ///
    /// All parts of the one statement see the rows as they were before it:
    /// - `old`: per item the batch touches, the participant's totals, and whether the batch only
    ///   appends to it (no new entry starts before the last stored one: the usual upload);
    /// - `later`: where it does not, an existing running row gets the new entries before it (a
    ///   sheet from a device that was offline lands before sheets already stored);
    /// - the new running rows: the totals (appending) or the existing row before each (one
    ///   seek), plus the new entries up to it;
    /// - the totals, with the first and last sheet's start.
    static let addComparisonSumsSQL = """
        WITH new AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[], $5::float8[])
                AS n (questionnaire_id, label, started_at, sheet_id, number)
        ), old AS (
            SELECT i.questionnaire_id, i.label, t.total, t.count, (t.last_started IS NULL OR i.first_new >= t.last_started) AS appends
            FROM (SELECT questionnaire_id, label, MIN(started_at) AS first_new FROM new GROUP BY 1, 2) i
            LEFT JOIN comparison_totals t ON t.questionnaire_id = i.questionnaire_id AND t.label = i.label AND t.user_id = $6
        ), later AS (
            UPDATE comparison_running r SET total = r.total + d.total, count = r.count + d.count
            FROM (SELECT e.questionnaire_id, e.label, e.started_at, e.sheet_id, SUM(n.number) AS total, COUNT(*) AS count
                  FROM old o JOIN new n ON n.questionnaire_id = o.questionnaire_id AND n.label = o.label AND NOT o.appends
                  JOIN comparison_running e
                    ON e.user_id = $6 AND e.questionnaire_id = n.questionnaire_id AND e.label = n.label
                   AND (e.started_at, e.sheet_id) > (n.started_at, n.sheet_id)
                  GROUP BY 1, 2, 3, 4) d
            WHERE r.user_id = $6 AND r.questionnaire_id = d.questionnaire_id AND r.label = d.label
              AND r.started_at = d.started_at AND r.sheet_id = d.sheet_id
        ), running AS (
            INSERT INTO comparison_running (questionnaire_id, label, user_id, started_at, sheet_id, total, count)
            SELECT n.questionnaire_id, n.label, $6, n.started_at, n.sheet_id,
                   COALESCE(CASE WHEN o.appends THEN o.total ELSE p.total END, 0) + SUM(n.number) OVER w,
                   COALESCE(CASE WHEN o.appends THEN o.count ELSE p.count END, 0) + COUNT(*) OVER w
            FROM new n JOIN old o ON o.questionnaire_id = n.questionnaire_id AND o.label = n.label
            LEFT JOIN LATERAL (
                SELECT e.total, e.count FROM comparison_running e
                WHERE NOT o.appends AND e.user_id = $6 AND e.questionnaire_id = n.questionnaire_id AND e.label = n.label
                  AND (e.started_at, e.sheet_id) < (n.started_at, n.sheet_id)
                ORDER BY e.started_at DESC, e.sheet_id DESC LIMIT 1) p ON true
            WINDOW w AS (PARTITION BY n.questionnaire_id, n.label ORDER BY n.started_at, n.sheet_id ROWS UNBOUNDED PRECEDING)
        )
        INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
        SELECT questionnaire_id, label, $6, SUM(number), COUNT(*), MIN(started_at), MAX(started_at) FROM new GROUP BY 1, 2
        ON CONFLICT (questionnaire_id, label, user_id) DO UPDATE SET
            total = comparison_totals.total + excluded.total, count = comparison_totals.count + excluded.count,
            first_started = LEAST(comparison_totals.first_started, excluded.first_started),
            last_started = GREATEST(comparison_totals.last_started, excluded.last_started)
        """

    static func addComparisonSums(_ connection: PostgresConnection, userId: Int64, stored: [(sheetId: Int64, sheet: AnswerSheet)],
                                  logger: Logger) async throws {
        let entries = ComparisonSums.entries(of: stored)
        guard !entries.isEmpty else { return }
        _ = try await connection.execute(AddComparisonSums(userId: userId, entries: entries), logger: logger)
    }

    /// ``addComparisonSumsSQL`` as a statement prepared once per connection (it is planned once,
    /// not on every upload).
    struct AddComparisonSums: PostgresPreparedStatement {
        typealias Row = ()
        static let sql = addComparisonSumsSQL
        let userId: Int64
        let entries: [ComparisonSums.Entry]

        func makeBindings() throws -> PostgresBindings {
            var binds = PostgresBindings(capacity: 6)
            binds.append(entries.map(\.questionnaireId))
            binds.append(entries.map(\.label))
            binds.append(entries.map(\.startedAt))
            binds.append(entries.map(\.sheetId))
            binds.append(entries.map(\.number))
            binds.append(userId)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    public func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double] {
        var means = ComparisonSums.Means(from: from, to: to)
        guard !means.periodIsEmpty else { return [:] }
        var binds = PostgresBindings(capacity: 5)
        binds.append(questionnaireId)
        binds.append(label)
        binds.append(studyId)
        // Per participant the totals row and, for a bound given, only where some but not all
        // sheets lie before it, the running row of the last sheet before it (one index seek).
        func lookup(_ bound: Double?) -> String {
            guard let bound else { return "LEFT JOIN (SELECT NULL::float8 AS total, NULL::bigint AS count)" }
            binds.append(bound)
            let parameter = "$\(binds.count)::float8"
            return """
                LEFT JOIN LATERAL (
                    SELECT r.total, r.count FROM comparison_running r
                    WHERE t.first_started < \(parameter) AND \(parameter) <= t.last_started
                      AND r.user_id = t.user_id AND r.questionnaire_id = t.questionnaire_id AND r.label = t.label AND r.started_at < \(parameter)
                    ORDER BY r.started_at DESC, r.sheet_id DESC LIMIT 1)
                """
        }
        let sql = """
            SELECT t.user_id, t.total, t.count, t.first_started, t.last_started, before_to.total, before_to.count, before_from.total, before_from.count
            FROM comparison_totals t
            JOIN memberships m ON m.study_id = $3 AND m.user_id = t.user_id AND m.status = 'member'
            \(lookup(means.to)) before_to ON true
            \(lookup(means.from)) before_from ON true
            WHERE t.questionnaire_id = $1 AND t.label = $2
            """
        guard means.from != nil || means.to != nil else {
            // All time: the totals alone, without the six columns a period needs.
            let rows = try await client.query(PostgresQuery(unsafeSQL: """
                SELECT t.user_id, t.total, t.count FROM comparison_totals t
                JOIN memberships m ON m.study_id = $3 AND m.user_id = t.user_id AND m.status = 'member'
                WHERE t.questionnaire_id = $1 AND t.label = $2
                """, binds: binds), logger: logger)
            var all: [Int64: Double] = [:]
            for try await (userId, total, count) in rows.decode((Int64, Double, Int64).self) where count > 0 {
                all[userId] = total / Double(count)
            }
            return all
        }
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        for try await (userId, total, count, first, last, toTotal, toCount, fromTotal, fromCount)
            in rows.decode((Int64, Double, Int64, Double, Double, Double?, Int64?, Double?, Int64?).self) {
            func sum(_ total: Double?, _ count: Int64?) -> ComparisonSums.Sum? {
                guard let total, let count else { return nil }
                return ComparisonSums.Sum(total: total, count: count)
            }
            means.add(ComparisonSums.Participant(userId: userId, totals: ComparisonSums.Sum(total: total, count: count),
                                                 firstStarted: first, lastStarted: last),
                      beforeTo: sum(toTotal, toCount), beforeFrom: sum(fromTotal, fromCount))
        }
        return means.means
    }

    public func rebuildComparisonSums() async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM comparison_totals", logger: logger)
            try await connection.query("DELETE FROM comparison_running", logger: logger)
            // The migration `pg5` keeps its own frozen copy of the fill, as a shipped step never changes.
            for statement in PostgreSQLMigrations.statements(ComparisonSums.fillSQL + ";\n") {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            // Fresh statistics for the planner: every row of both tables is new.
            try await connection.query("ANALYZE comparison_totals, comparison_running", logger: logger)
        }
    }
}
