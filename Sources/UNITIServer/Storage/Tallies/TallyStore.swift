import Foundation

/// Reading the kept counts (``TallySchema``): the day tallies, their changes folded in first.
extension ServerStore {
    /// Moves the day tallies' changes into `day_tallies` (summed per day) and drops days whose
    /// count came back to nothing, in one transaction. On PostgreSQL exactly the changes it
    /// deletes are added (`DELETE … RETURNING`), so a change appended meanwhile by an upload is
    /// left for the next fold; on SQLite nothing is appended meanwhile (one writer at a time).
    /// Run before the day tallies are read and every ten minutes (``AlertMonitor``), so the
    /// changes stay few: about three per prompt and one per sheet of those minutes.
    func foldDayTallies() async throws {
        try await database.transaction { db in
            try await db.lock(.name("day-tallies", .dayTallies))
            switch db.dialect {
            case .sqlite:
                try await db.execute("""
                    INSERT INTO day_tallies (counted, subject, day, kinds, n)
                    SELECT counted, subject, day, kinds, SUM(n) FROM day_tally_changes WHERE true GROUP BY counted, subject, day, kinds
                    ON CONFLICT (counted, subject, day, kinds) DO UPDATE SET n = day_tallies.n + excluded.n
                    """)
                try await db.execute("DELETE FROM day_tally_changes")
            case .postgres:
                try await db.execute("""
                    WITH gone AS (DELETE FROM day_tally_changes RETURNING counted, subject, day, kinds, n)
                    INSERT INTO day_tallies (counted, subject, day, kinds, n)
                    SELECT counted, subject, day, kinds, SUM(n) FROM gone GROUP BY counted, subject, day, kinds
                    ON CONFLICT (counted, subject, day, kinds) DO UPDATE SET n = day_tallies.n + excluded.n
                    """)
            }
            try await db.execute("DELETE FROM day_tallies WHERE n = 0")
        }
    }

    /// The day tallies of `counted` (`sheets`, `prompts`) for `subjects` (study ids, questionnaire
    /// ids) on the UTC days `days` (all when nil), summed over the subjects: day (seconds since
    /// 1970 / 86,400), kinds and count, ordered by day.
    func dayTallies(_ counted: String, subjects: [String], days: ClosedRange<Int>? = nil) async throws -> [(day: Int, kinds: Int, count: Int)] {
        guard !subjects.isEmpty else { return [] }
        try await foldDayTallies()
        var sql: SQL = "SELECT day, kinds, CAST(SUM(n) AS bigint) AS n FROM day_tallies WHERE counted = \(counted) AND subject IN (\(list: subjects))"
        if let days { sql += " AND day BETWEEN \(days.lowerBound) AND \(days.upperBound)" }
        return try await database.rows(sql + " GROUP BY day, kinds ORDER BY day, kinds").map {
            (day: try $0["day"], kinds: try $0["kinds"], count: try $0["n"])
        }
    }
}
