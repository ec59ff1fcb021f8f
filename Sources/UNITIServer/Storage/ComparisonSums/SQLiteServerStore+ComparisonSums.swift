import Foundation
import GRDB
import UNITIProtocol

/// The comparison's running sums in SQLite (a step of ``ServerMigrations``; never edit a shipped step).
enum ComparisonSumSchema {
    /// `v8-comparison-sums`: the sums and counts of numeric answers per questionnaire item and
    /// participant, in total and per UTC day of the sheet's start, filled from the answers
    /// already stored.
    static func v8(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE comparison_totals (
                questionnaire_id TEXT NOT NULL,
                label TEXT NOT NULL,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                total REAL NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (questionnaire_id, label, user_id)
            ) WITHOUT ROWID;
            CREATE TABLE comparison_days (
                questionnaire_id TEXT NOT NULL,
                label TEXT NOT NULL,
                day INTEGER NOT NULL,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                total REAL NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (questionnaire_id, label, day, user_id)
            ) WITHOUT ROWID;
            CREATE INDEX comparison_totals_user ON comparison_totals(user_id);
            CREATE INDEX comparison_days_user ON comparison_days(user_id);
            """)
        try fill(db)
    }

    /// The UTC day of `answer_sheets.started_at`, as ``ComparisonSums/day(of:)`` computes it.
    static let daySQL = "(CAST(s.started_at / 86400 AS INTEGER) - (s.started_at < CAST(s.started_at / 86400 AS INTEGER) * 86400))"

    /// Fills both tables from every stored answer (the migration, and `maintenance rebuild-comparison`).
    static func fill(_ db: Database) throws {
        try db.execute(sql: ComparisonSums.fillSQL(day: daySQL))
    }
}

extension SQLiteServerStore {
    /// Adds the numeric answers of sheets just stored to the sums, in the storing transaction.
    static func addComparisonSums(_ db: Database, userId: Int64, stored sheets: [AnswerSheet]) throws {
        let increments = ComparisonSums.increments(of: sheets)
        guard !increments.isEmpty else { return }
        let totals = try db.cachedStatement(sql: """
            INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (questionnaire_id, label, user_id) DO UPDATE SET total = total + excluded.total, count = count + excluded.count
            """)
        let days = try db.cachedStatement(sql: """
            INSERT INTO comparison_days (questionnaire_id, label, day, user_id, total, count) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (questionnaire_id, label, day, user_id) DO UPDATE SET total = total + excluded.total, count = count + excluded.count
            """)
        for (key, sum) in increments {
            if let day = key.day {
                try days.execute(arguments: [key.questionnaireId, key.label, day, userId, sum.total, sum.count])
            } else {
                try totals.execute(arguments: [key.questionnaireId, key.label, userId, sum.total, sum.count])
            }
        }
    }

    public func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double] {
        try await pool.read { db in
            var sums = ComparisonSums.Accumulator()
            func read(_ sql: String, _ arguments: StatementArguments, subtracting: Bool = false) throws {
                let rows = try Row.fetchCursor(db, sql: sql, arguments: ["q": questionnaireId, "study": studyId, "label": label] + arguments)
                while let row = try rows.next() {
                    if subtracting {
                        sums.subtract(userId: row["user_id"], total: row["total"], count: row["count"])
                    } else {
                        sums.add(userId: row["user_id"], total: row["total"], count: row["count"])
                    }
                }
            }
            let member = "JOIN memberships m ON m.study_id = :study AND m.user_id = x.user_id AND m.status = 'member'"
            let totals = "SELECT x.user_id, x.total, x.count FROM comparison_totals x \(member) WHERE x.questionnaire_id = :q AND x.label = :label"
            func days(_ lower: Int64?, _ upper: Int64?, subtracting: Bool = false) throws {
                try read("""
                    SELECT x.user_id, SUM(x.total) AS total, SUM(x.count) AS count FROM comparison_days x \(member)
                    WHERE x.questionnaire_id = :q AND x.label = :label
                      AND (:lower IS NULL OR x.day >= :lower) AND (:upper IS NULL OR x.day < :upper)
                    GROUP BY x.user_id
                    """, ["lower": lower, "upper": upper], subtracting: subtracting)
            }
            guard let window = ComparisonSums.Window(from: from, to: to) else {
                try read(totals, [:])
                return sums.means
            }
            if let range = window.days {
                let stored = try Row.fetchOne(db, sql: """
                    SELECT MIN(day) AS first, MAX(day) AS last FROM comparison_days WHERE questionnaire_id = :q AND label = :label
                    """, arguments: ["q": questionnaireId, "label": label])
                let first: Int64? = stored?["first"], last: Int64? = stored?["last"]
                switch ComparisonSums.DayRead(range, stored: first.flatMap { first in last.map { first...$0 } }) {
                case .nothing:
                    break
                case .inside(let lower, let upper):
                    try days(lower, upper)
                case .totalsMinus(let before, let from):
                    try read(totals, [:])
                    if let before { try days(nil, before, subtracting: true) }
                    if let from { try days(from, nil, subtracting: true) }
                }
            }
            for edge in window.edges {
                // The sheets started in the edge, by their time index: without `INDEXED BY` the
                // planner walks every sheet in user order to spare itself the GROUP BY's sort.
                try read("""
                    SELECT x.user_id, SUM(a.number) AS total, COUNT(*) AS count
                    FROM answers a JOIN answer_sheets x INDEXED BY sheets_questionnaire ON x.id = a.sheet_id \(member)
                    WHERE x.questionnaire_id = :q AND a.label = :label AND a.number IS NOT NULL
                      AND x.started_at >= :start AND x.started_at < :end
                    GROUP BY x.user_id
                    """, ["start": edge.start, "end": edge.end])
            }
            return sums.means
        }
    }

    public func rebuildComparisonSums() async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM comparison_totals; DELETE FROM comparison_days")
            try ComparisonSumSchema.fill(db)
        }
    }
}
