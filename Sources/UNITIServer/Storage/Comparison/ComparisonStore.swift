import Foundation
import UNITIProtocol

/// The comparison with all users (Track Your Stress thesis, FR18), written once for both stores:
///
/// - **All time** is `comparison_totals`: per questionnaire item and participant the sum and
///   count of the numeric answers, and the start of the first and last sheet holding one, kept
///   in the transaction that stores the sheets (an upsert per item of an upload; on PostgreSQL
///   part of the upload's one statement, ``PostgreSQLSheetInsert``).
/// - **A period** `[from, to)` is one aggregate statement over the covering index
///   `answers_comparison` (participant, questionnaire, label, sheet start, number): each answer
///   row carries its sheet's participant, questionnaire and start, which never change once a
///   sheet is stored. It reads the smaller side (``ComparisonSums/Side``): the answers inside the
///   period, or the totals minus the answers outside it.
/// - **Who counts** is read in that statement from `memberships`: the current members of the
///   study that owns the questionnaire.
///
/// Nothing is kept in memory: a statement reads what is stored, so an answer (late or not) and a
/// membership change count in the next comparison, on every server process. The request is read
/// a few times per participant per day; `Documentation/uniti-server.md` has its cost.
extension ServerStore {
    /// The figures of the comparison for the participant `userId` (each current member's mean,
    /// status `member` in `studyId`, the questionnaire's study, of the numeric answers to `label`
    /// in sheets started in `[from, to)`, either end open when nil), summed up in the database, so
    /// that the means of 10,000 participants do not travel to the server. Someone who left, or
    /// answered a public study's questionnaire without joining, is not counted.
    func comparisonFigures(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                           userId: Int64) async throws -> ComparisonFigures {
        let item = ComparisonSums.Item(questionnaireId: questionnaireId, label: label, studyId: studyId)
        let (from, to) = (from?.timeIntervalSince1970, to?.timeIntervalSince1970)
        let side = try await comparisonSide(item, from: from, to: to)
        guard let row = try await database.row(ComparisonSums.figures(item, from: from, to: to, side: side, userId: userId)) else {
            throw StoreCorruption("the comparison's figures came back without a row")
        }
        return ComparisonFigures(participants: try row["participants"], sumOfMeans: try row["sum_of_means"], ownMean: try row["own_mean"],
                                 below: try row["below"], equal: try row["equal"])
    }

    /// The side a period is read from, by the item's span. (Read in a statement of its own: a
    /// sheet stored in between only makes the guess a little older, never the figures wrong.)
    func comparisonSide(_ item: ComparisonSums.Item, from: Double?, to: Double?) async throws -> ComparisonSums.Side {
        guard from != nil || to != nil else { return .outside }
        let row = try await database.row("""
            SELECT MIN(first_started) AS first, MAX(last_started) AS last FROM comparison_totals
            WHERE questionnaire_id = \(item.questionnaireId) AND label = \(item.label)
            """)
        let (first, last): (Double?, Double?) = (try row?["first"], try row?["last"])
        return ComparisonSums.Side(from: from, to: to, span: first.flatMap { first in last.map { first...$0 } })
    }

    /// `uniti-server maintenance rebuild-comparison`, in one transaction: answers loaded into the
    /// database directly get their sheet's participant, questionnaire and start, and the totals
    /// are summed up again from every answer.
    func rebuildComparisonSums() async throws {
        try await database.transaction { db in
            try await db.execute("DELETE FROM comparison_totals")
            try await db.execute("""
                UPDATE answers SET user_id = s.user_id, questionnaire_id = s.questionnaire_id, started_at = s.started_at
                FROM answer_sheets s WHERE s.id = answers.sheet_id AND answers.user_id IS NULL
                """)
            try await db.execute("""
                INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
                SELECT questionnaire_id, label, user_id, SUM(number), COUNT(*), MIN(started_at), MAX(started_at)
                FROM answers WHERE number IS NOT NULL
                GROUP BY user_id, questionnaire_id, label
                """)
            // Fresh statistics for PostgreSQL's planner: every totals row is new. (SQLite plans
            // these statements by their indexes alone and keeps no statistics unless asked.)
            if db.dialect == .postgres { try await db.execute("ANALYZE comparison_totals") }
        }
    }
}

/// The comparison's statements and what an upload adds to the totals.
enum ComparisonSums {
    /// How an upload's rows for `comparison_totals` join those already kept: sums and counts
    /// added, the first and last start widened. Both stores' uploads end their insert with it.
    static let addToTotals = """
        ON CONFLICT (questionnaire_id, label, user_id) DO UPDATE SET
            total = comparison_totals.total + excluded.total, count = comparison_totals.count + excluded.count,
            first_started = CASE WHEN excluded.first_started < comparison_totals.first_started
                                 THEN excluded.first_started ELSE comparison_totals.first_started END,
            last_started = CASE WHEN excluded.last_started > comparison_totals.last_started
                                THEN excluded.last_started ELSE comparison_totals.last_started END
        """

    /// Which answers a period's statement reads; both give the same figures.
    enum Side: Equatable {
        /// The answers started in the period.
        case inside
        /// The totals, less the answers started before `from` and at or after `to`.
        case outside

        /// The side with fewer answers, judged as if the item's answers were spread evenly over
        /// `span`, its first to its last start: inside when the period covers at most half of it.
        /// All time reads the totals alone.
        init(from: Double?, to: Double?, span: ClosedRange<Double>?) {
            guard from != nil || to != nil else { self = .outside; return }
            guard let span else { self = .inside; return }
            let covered = min(to ?? span.upperBound, span.upperBound) - max(from ?? span.lowerBound, span.lowerBound)
            self = covered * 2 <= span.upperBound - span.lowerBound ? .inside : .outside
        }
    }

    /// One item of a questionnaire, compared within the study that owns the questionnaire.
    struct Item {
        var questionnaireId: String
        var label: String
        var studyId: String
    }

    /// The start of a statement up to the CTE `means`: each counted participant's mean in the
    /// period, read from `side`.
    static func means(_ item: Item, from: Double?, to: Double?, side: Side) -> SQL {
        let members: SQL = "m.study_id = \(item.studyId) AND m.status = 'member'"
        let owned: SQL = "EXISTS (SELECT 1 FROM questionnaires q WHERE q.id = \(item.questionnaireId) AND q.study_id = \(item.studyId))"
        // Each member's sum and count of the item's answers started where `condition` holds: per
        // member one range of the index, read in member order (no sort for the grouping).
        func answers(_ name: String, _ condition: SQL) -> SQL {
            """
            \(raw: name) AS (
                SELECT m.user_id, SUM(a.number) AS total, COUNT(*) AS count
                FROM memberships m JOIN answers a ON a.user_id = m.user_id
                WHERE \(members) AND a.questionnaire_id = \(item.questionnaireId) AND a.label = \(item.label)
                  AND a.number IS NOT NULL AND \(condition)
                GROUP BY m.user_id
            ),

            """
        }
        let sums: SQL
        switch side {
        case .inside:
            let after: SQL = from.map { "a.started_at >= \($0)" } ?? "1 = 1"
            let before: SQL = to.map { "a.started_at < \($0)" } ?? "1 = 1"
            sums = "WITH " + answers("inside", "\(after) AND \(before)") + "sums AS (SELECT user_id, total, count FROM inside WHERE \(owned)),\n"
        case .outside:
            // A bound beyond the item's first or last start has nothing on its far side: the
            // statement checks once and skips the range (at 10,000 members: 10,000 seeks).
            let span: SQL = "FROM comparison_totals WHERE questionnaire_id = \(item.questionnaireId) AND label = \(item.label)"
            var ranges: [(name: String, condition: SQL)] = []
            if let from { ranges.append(("before_from", "a.started_at < \(from) AND \(from) > (SELECT MIN(first_started) \(span))")) }
            if let to { ranges.append(("from_to", "a.started_at >= \(to) AND \(to) <= (SELECT MAX(last_started) \(span))")) }
            let total = ranges.map { " - COALESCE(\($0.name).total, 0)" }.joined()
            let count = ranges.map { " - COALESCE(\($0.name).count, 0)" }.joined()
            sums = "WITH " + SQL.joined(ranges.map { answers($0.name, $0.condition) }, separator: "") + """
                sums AS (
                    SELECT m.user_id, t.total\(raw: total) AS total, t.count\(raw: count) AS count
                    FROM memberships m
                    JOIN comparison_totals t ON t.user_id = m.user_id AND t.questionnaire_id = \(item.questionnaireId) AND t.label = \(item.label)
                    \(raw: ranges.map { "LEFT JOIN \($0.name) ON \($0.name).user_id = m.user_id" }.joined(separator: "\n"))
                    WHERE \(members) AND \(owned)
                ),

                """
        }
        return sums + "means AS (SELECT user_id, total / count AS mean FROM sums WHERE count > 0)\n"
    }

    /// The figures of ``Comparison`` for the participant `userId`, summed up in the statement: one
    /// row (participants, sum of means, own mean or NULL, means below it, means equal to it).
    static func figures(_ item: Item, from: Double?, to: Double?, side: Side, userId: Int64) -> SQL {
        means(item, from: from, to: to, side: side) + """
            , own AS (SELECT mean FROM means WHERE user_id = \(userId))
            SELECT COUNT(*) AS participants, COALESCE(SUM(mean), 0) AS sum_of_means, (SELECT mean FROM own) AS own_mean,
                   COUNT(CASE WHEN mean < (SELECT mean FROM own) THEN 1 END) AS below,
                   COUNT(CASE WHEN mean = (SELECT mean FROM own) THEN 1 END) AS equal
            FROM means
            """
    }

    /// What an upload adds to one item's totals of its participant.
    struct Addition: Equatable {
        var questionnaireId: String
        var label: String
        var total: Double
        var count: Int64
        var firstStarted: Double
        var lastStarted: Double

        /// The numeric answers of the sheets just stored (not duplicates), one addition per
        /// item, in the order of the items (so two transactions lock totals rows in one order).
        static func of(_ sheets: [AnswerSheet]) -> [Addition] {
            var additions: [String: Addition] = [:]
            for sheet in sheets {
                let started = sheet.startedAt.date.timeIntervalSince1970
                for (label, answer) in sheet.answers {
                    guard let number = answer.value.number else { continue }
                    let key = sheet.questionnaireID + "\u{0}" + label
                    var addition = additions[key] ?? Addition(questionnaireId: sheet.questionnaireID, label: label, total: 0, count: 0,
                                                              firstStarted: started, lastStarted: started)
                    addition.total += number
                    addition.count += 1
                    addition.firstStarted = min(addition.firstStarted, started)
                    addition.lastStarted = max(addition.lastStarted, started)
                    additions[key] = addition
                }
            }
            return additions.values.sorted { ($0.questionnaireId, $0.label) < ($1.questionnaireId, $1.label) }
        }
    }
}
