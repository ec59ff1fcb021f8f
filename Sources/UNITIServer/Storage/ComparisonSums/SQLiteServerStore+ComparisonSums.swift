import Foundation
import GRDB
import UNITIProtocol

/// The comparison's running sums in SQLite (steps of ``ServerMigrations``; never edit a shipped step).
enum ComparisonSumSchema {
    /// `v8-comparison-sums`: the sums and counts of numeric answers per questionnaire item and
    /// participant, in total and per UTC day of the sheet's start, filled from the answers
    /// already stored. (Replaced by `v9`; kept as shipped.)
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
            INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count)
            SELECT s.questionnaire_id, a.label, s.user_id, SUM(a.number), COUNT(*)
            FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
            WHERE a.number IS NOT NULL
            GROUP BY s.questionnaire_id, a.label, s.user_id;
            INSERT INTO comparison_days (questionnaire_id, label, day, user_id, total, count)
            SELECT s.questionnaire_id, a.label,
                (CAST(s.started_at / 86400 AS INTEGER) - (s.started_at < CAST(s.started_at / 86400 AS INTEGER) * 86400)),
                s.user_id, SUM(a.number), COUNT(*)
            FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
            WHERE a.number IS NOT NULL
            GROUP BY 1, 2, 3, 4
            """)
    }

    /// `v9-comparison-running`: the day sums give way to running sums per sheet, so that any
    /// period is one seek per participant (a 30-day period had read 300,000 day rows and two
    /// partial days of answers); the totals learn each participant's first and last sheet.
    /// The running rows are keyed person first: an upload's rows for all items share one or two
    /// pages (keyed item first, each upload wrote a page per item, spread over the table, and
    /// uploads ran at half the rate), and deleting a person needs no index of its own.
    static func v9(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE comparison_days;
            DROP TABLE comparison_totals;
            CREATE TABLE comparison_totals (
                questionnaire_id TEXT NOT NULL,
                label TEXT NOT NULL,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                total REAL NOT NULL,
                count INTEGER NOT NULL,
                first_started REAL NOT NULL,
                last_started REAL NOT NULL,
                PRIMARY KEY (questionnaire_id, label, user_id)
            ) WITHOUT ROWID;
            CREATE TABLE comparison_running (
                questionnaire_id TEXT NOT NULL,
                label TEXT NOT NULL,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                started_at REAL NOT NULL,
                sheet_id INTEGER NOT NULL,
                total REAL NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (user_id, questionnaire_id, label, started_at, sheet_id)
            ) WITHOUT ROWID;
            CREATE INDEX comparison_totals_user ON comparison_totals(user_id);
            """)
        try fill(db)
    }

    /// Fills both tables from every stored answer (`v9`, and `maintenance rebuild-comparison`).
    static func fill(_ db: Database) throws {
        try db.execute(sql: ComparisonSums.fillSQL)
    }
}

extension SQLiteServerStore {
    /// Adds the numeric answers of sheets just stored to the sums, in the storing transaction.
    /// Entries go in running order, each first added to the participant's totals. The usual
    /// entry is the participant's newest: its running row is the new totals. Only a sheet from
    /// before others already stored (a device that was offline) needs the running row before
    /// it, and adds itself to every later row of the participant.
    static func addComparisonSums(_ db: Database, userId: Int64, stored: [(sheetId: Int64, sheet: AnswerSheet)]) throws {
        let entries = ComparisonSums.entries(of: stored)
        guard !entries.isEmpty else { return }
        let item = "user_id = :user AND questionnaire_id = :q AND label = :label"
        let totals = try db.cachedStatement(sql: """
            INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
            VALUES (:q, :label, :user, :number, 1, :started, :started)
            ON CONFLICT (questionnaire_id, label, user_id) DO UPDATE SET
                total = total + excluded.total, count = count + 1,
                first_started = min(first_started, excluded.first_started), last_started = max(last_started, excluded.last_started)
            RETURNING total, count, last_started
            """)
        let previous = try db.cachedStatement(sql: """
            SELECT total, count FROM comparison_running
            WHERE \(item) AND started_at <= :started AND (started_at < :started OR sheet_id < :sheet)
            ORDER BY started_at DESC, sheet_id DESC LIMIT 1
            """)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO comparison_running (questionnaire_id, label, user_id, started_at, sheet_id, total, count)
            VALUES (:q, :label, :user, :started, :sheet, :total, :count)
            """)
        let later = try db.cachedStatement(sql: """
            UPDATE comparison_running SET total = total + :number, count = count + 1
            WHERE \(item) AND started_at >= :started AND (started_at > :started OR sheet_id > :sheet)
            """)
        for entry in entries {
            let key: StatementArguments = ["q": entry.questionnaireId, "label": entry.label, "user": userId,
                                           "started": entry.startedAt, "sheet": entry.sheetId]
            guard let now = try Row.fetchOne(totals, arguments: key + ["number": entry.number]) else {
                throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "the comparison totals' upsert returned no row")
            }
            // A sheet stored now has a higher id than the participant's stored ones: started no
            // earlier than the last of them (the last start is now its own), it comes after all.
            if entry.startedAt == now[2] as Double {
                try insert.execute(arguments: key + ["total": now[0] as Double, "count": now[1] as Int64])
                continue
            }
            let before = try Row.fetchOne(previous, arguments: key)
            try insert.execute(arguments: key + ["total": (before.map { $0[0] as Double } ?? 0) + entry.number,
                                                 "count": (before.map { $0[1] as Int64 } ?? 0) + 1])
            try later.execute(arguments: key + ["number": entry.number])
        }
    }

    public func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double] {
        let period = ComparisonSums.Means(from: from, to: to)
        guard !period.periodIsEmpty else { return [:] }
        // Per participant the totals row and, for a bound given, only where some but not all
        // sheets lie before it, the running row of the last sheet before it (a seek per value).
        func lookup(_ bound: String, _ given: Double?) -> String {
            ["total", "count"].map { column in
                guard given != nil else { return "NULL AS \(bound)_\(column)" }
                return """
                    CASE WHEN t.first_started < :\(bound) AND :\(bound) <= t.last_started THEN
                        (SELECT r.\(column) FROM comparison_running r
                         WHERE r.user_id = t.user_id AND r.questionnaire_id = t.questionnaire_id AND r.label = t.label AND r.started_at < :\(bound)
                         ORDER BY r.started_at DESC, r.sheet_id DESC LIMIT 1)
                    END AS \(bound)_\(column)
                    """
            }.joined(separator: ", ")
        }
        let sql = """
            SELECT t.user_id, t.total, t.count, t.first_started, t.last_started, \(lookup("to", period.to)), \(lookup("from", period.from))
            FROM comparison_totals t
            JOIN memberships m ON m.study_id = :study AND m.user_id = t.user_id AND m.status = 'member'
            WHERE t.questionnaire_id = :q AND t.label = :label
            """
        return try await pool.read { db in
            var means = period
            let rows = try Row.fetchCursor(db, sql: sql, arguments: ["q": questionnaireId, "label": label, "study": studyId,
                                                                     "from": period.from, "to": period.to])
            // Columns by position, not by name: at 10,000 rows × 9 columns the name lookups showed (all time, 12.1 → 8.8 ms p50).
            func sum(_ row: Row, _ first: Int) -> ComparisonSums.Sum? {
                let total: Double? = row[first], count: Int64? = row[first + 1]
                guard let total, let count else { return nil }
                return ComparisonSums.Sum(total: total, count: count)
            }
            while let row = try rows.next() {
                let participant = ComparisonSums.Participant(userId: row[0], totals: ComparisonSums.Sum(total: row[1], count: row[2]),
                                                             firstStarted: row[3], lastStarted: row[4])
                means.add(participant, beforeTo: sum(row, 5), beforeFrom: sum(row, 7))
            }
            return means.means
        }
    }

    public func rebuildComparisonSums() async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM comparison_totals; DELETE FROM comparison_running")
            try ComparisonSumSchema.fill(db)
        }
    }
}
