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
    /// - `late`: a new version for each item with an answer started before the current UTC day
    ///   (`$7`), whose day snapshots change (``addComparisonSums(_:userId:stored:receivedAt:logger:)``);
    ///   the rows are locked in the order of the items, so two late uploads never deadlock;
    /// - the totals, with the first and last sheet's start, and for a new row whether the person
    ///   is a current member of the questionnaire's study (a membership change waits for the
    ///   person's sheet lock this transaction holds, then sets it: ``setMembership``).
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
        ), late AS (
            INSERT INTO comparison_versions (questionnaire_id, label, version)
            SELECT DISTINCT questionnaire_id, label, 1 FROM new WHERE started_at < $7 ORDER BY 1, 2
            ON CONFLICT (questionnaire_id, label) DO UPDATE SET version = comparison_versions.version + 1
        )
        INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started, member)
        SELECT questionnaire_id, label, $6, SUM(number), COUNT(*), MIN(started_at), MAX(started_at),
               \(currentMember(questionnaire: "new.questionnaire_id", user: "$6"))
        FROM new GROUP BY 1, 2
        ON CONFLICT (questionnaire_id, label, user_id) DO UPDATE SET
            total = comparison_totals.total + excluded.total, count = comparison_totals.count + excluded.count,
            first_started = LEAST(comparison_totals.first_started, excluded.first_started),
            last_started = GREATEST(comparison_totals.last_started, excluded.last_started)
        """

    static func addComparisonSums(_ connection: PostgresConnection, userId: Int64, stored: [(sheetId: Int64, sheet: AnswerSheet)],
                                  receivedAt: Date, logger: Logger) async throws {
        let entries = ComparisonSums.entries(of: stored)
        guard !entries.isEmpty else { return }
        _ = try await connection.execute(AddComparisonSums(userId: userId, entries: entries,
                                                           lateBefore: ComparisonSums.dayStart(of: receivedAt)), logger: logger)
        let late = ComparisonSums.lateItems(entries, receivedAt: receivedAt)
        guard !late.isEmpty else { return }
        // The statement above raised the version of each item with a late answer, and this
        // transaction holds that row until it ends: no other late upload of the item runs the
        // two statements below at the same time. The snapshots current before the raise
        // (version - 1) get the late answers and the new version; a snapshot being built
        // meanwhile read the old version and stays stale.
        let answers = late.flatMap(\.entries)
        try await connection.query("""
            INSERT INTO comparison_snapshots (questionnaire_id, label, day, user_id, total, count)
            SELECT d.questionnaire_id, d.label, d.day, \(userId), SUM(n.number), COUNT(*)
            FROM unnest(\(answers.map(\.questionnaireId))::text[], \(answers.map(\.label))::text[],
                        \(answers.map(\.startedAt))::float8[], \(answers.map(\.number))::float8[]) AS n (questionnaire_id, label, started_at, number)
            JOIN comparison_versions v ON v.questionnaire_id = n.questionnaire_id AND v.label = n.label
            JOIN comparison_snapshot_days d ON d.questionnaire_id = n.questionnaire_id AND d.label = n.label
             AND d.version = v.version - 1 AND d.day * 86400 > n.started_at
            GROUP BY d.questionnaire_id, d.label, d.day
            ON CONFLICT (questionnaire_id, label, day, user_id) DO UPDATE SET
                total = comparison_snapshots.total + excluded.total, count = comparison_snapshots.count + excluded.count
            """, logger: logger)
        try await connection.query("""
            UPDATE comparison_snapshot_days d SET version = v.version
            FROM comparison_versions v, unnest(\(late.map(\.questionnaireId))::text[], \(late.map(\.label))::text[]) AS i (questionnaire_id, label)
            WHERE v.questionnaire_id = i.questionnaire_id AND v.label = i.label
              AND d.questionnaire_id = i.questionnaire_id AND d.label = i.label AND d.version = v.version - 1
            """, logger: logger)
    }

    /// ``addComparisonSumsSQL`` as a statement prepared once per connection (it is planned once,
    /// not on every upload).
    struct AddComparisonSums: PostgresPreparedStatement {
        typealias Row = ()
        static let sql = addComparisonSumsSQL
        let userId: Int64
        let entries: [ComparisonSums.Entry]
        let lateBefore: Double

        func makeBindings() throws -> PostgresBindings {
            var binds = PostgresBindings(capacity: 7)
            binds.append(entries.map(\.questionnaireId))
            binds.append(entries.map(\.label))
            binds.append(entries.map(\.startedAt))
            binds.append(entries.map(\.sheetId))
            binds.append(entries.map(\.number))
            binds.append(userId)
            binds.append(lateBefore)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    public func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                                 now: Date) async throws -> [Int64: Double] {
        if let settled = try await settledPeriod(questionnaireId, studyId, label, from: from, to: to, now: now) {
            return settled.byParticipant
        }
        if let open = try await sinceSettledBound(questionnaireId, studyId, label, from: from, to: to, now: now) {
            return Dictionary(uniqueKeysWithValues: zip(open.userIds, open.means))
        }
        return try await readPeriod(questionnaireId, studyId, label, from: from, to: to, now: now, empty: [:], means)
    }

    /// The item's version, as an SQL expression of the questionnaire and label given as SQL.
    private static func versionSQL(_ questionnaire: String, _ label: String) -> String {
        "COALESCE((SELECT version FROM comparison_versions WHERE questionnaire_id = \(questionnaire) AND label = \(label)), 0)"
    }

    /// A settled period's means (``SettledPeriod``): the ones kept in memory while the item's
    /// version stands, else read with the version in one statement and kept. Nil for a period
    /// that is not settled, or empty.
    private func settledPeriod(_ questionnaireId: String, _ studyId: String, _ label: String, from: Date?, to: Date?,
                               now: Date) async throws -> SettledPeriod? {
        guard let to, ComparisonSums.isSettled(to: to.timeIntervalSince1970, now: now) else { return nil }
        let period = ComparisonSums.Means(from: from, to: to)
        guard !period.periodIsEmpty else { return nil }
        let key = SettledKey(questionnaireId: questionnaireId, studyId: studyId, label: label, from: period.from, to: period.to)
        if let kept = comparisonPeriods.value(key) {
            var binds = PostgresBindings(capacity: 2)
            binds.append(questionnaireId)
            binds.append(label)
            let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT \(Self.versionSQL("$1", "$2"))", binds: binds), logger: logger)
            for try await version in rows.decode(Int64.self) where version == kept.version { return kept }
        }
        let read = try await readPeriod(questionnaireId, studyId, label, from: from, to: to, now: now, empty: SettledPeriod?.none) { query in
            let rows = try await client.query(PostgresQuery(unsafeSQL: query.sql + """
                SELECT v.valid, \(Self.versionSQL("$1", "$2")), a.users, a.means
                FROM valid v CROSS JOIN (
                    SELECT COALESCE(array_agg(user_id), '{}') AS users, COALESCE(array_agg(mean), '{}') AS means FROM means
                ) a
                """, binds: query.binds), logger: logger)
            for try await (valid, version, users, means) in rows.decode((Bool, Int64, [Int64], [Double]).self) {
                return (SettledPeriod(version: version, userIds: users, means: means) as SettledPeriod?, valid)
            }
            return (nil, false)
        }
        if let read { comparisonPeriods.keep(read, for: key) }
        return read
    }

    /// The means of a period open to now whose `from` is settled: each current member's totals
    /// minus the sums before `from` kept in memory (``SettledBound``), read with the version in
    /// one statement; while it stands, no snapshot or partial day is joined. Otherwise read as
    /// before, with every member's sums before `from` from the same statement, which are kept.
    /// Nil for another period.
    private func sinceSettledBound(_ questionnaireId: String, _ studyId: String, _ label: String, from: Date?, to: Date?,
                                   now: Date) async throws -> (userIds: [Int64], means: [Double])? {
        guard to == nil, let from, ComparisonSums.isSettled(to: from.timeIntervalSince1970, now: now) else { return nil }
        let key = SettledKey(questionnaireId: questionnaireId, studyId: studyId, label: label, from: from.timeIntervalSince1970, to: nil)
        if let kept = comparisonBounds.value(key) {
            var binds = PostgresBindings(capacity: 3)
            binds.append(questionnaireId)
            binds.append(label)
            binds.append(studyId)
            let rows = try await client.query(PostgresQuery(unsafeSQL: """
                SELECT \(Self.versionSQL("$1", "$2")),
                       COALESCE(array_agg(t.user_id), '{}'), COALESCE(array_agg(t.total), '{}'), COALESCE(array_agg(t.count), '{}')
                FROM comparison_totals t
                WHERE t.questionnaire_id = $1 AND t.label = $2 AND t.member
                  AND EXISTS (SELECT FROM questionnaires WHERE id = $1 AND study_id = $3)
                """, binds: binds), logger: logger)
            for try await (version, users, totals, counts) in rows.decode((Int64, [Int64], [Double], [Int64]).self) where version == kept.version {
                return kept.means(totals: (users, totals, counts))
            }
        }
        // The means come from the kept sums and the totals as on the next request: one
        // computation for both.
        typealias Read = (means: (userIds: [Int64], means: [Double]), bound: SettledBound)
        let read = try await readPeriod(questionnaireId, studyId, label, from: from, to: nil, now: now, empty: Read?.none) { query in
            let rows = try await client.query(PostgresQuery(unsafeSQL: query.sql + """
                SELECT v.valid, \(Self.versionSQL("$1", "$2")), a.users, a.upper_totals, a.upper_counts, a.lower_totals, a.lower_counts
                FROM valid v CROSS JOIN (
                    SELECT COALESCE(array_agg(user_id), '{}') AS users,
                           COALESCE(array_agg(upper_total), '{}') AS upper_totals, COALESCE(array_agg(upper_count), '{}') AS upper_counts,
                           COALESCE(array_agg(lower_total), '{}') AS lower_totals, COALESCE(array_agg(lower_count), '{}') AS lower_counts
                    FROM sums
                ) a
                """, binds: query.binds), logger: logger)
            for try await (valid, version, users, upperTotals, upperCounts, lowerTotals, lowerCounts)
                in rows.decode((Bool, Int64, [Int64], [Double], [Int64], [Double], [Int64]).self) {
                let bound = SettledBound(version: version, userIds: users, totals: lowerTotals, counts: lowerCounts)
                let read: Read = (bound.means(totals: (users, upperTotals, upperCounts)), bound)
                return (read, valid)
            }
            return (nil, false)
        }
        guard let read else { return ([], []) }
        comparisonBounds.keep(read.bound, for: key)
        return read.means
    }

    /// ``participantMeans`` read as if each given bound lay outside the item's sheets, and
    /// whether that read is valid: what a request reads when a sheet among a bound was stored
    /// after its look at the item's first and last sheet (tests: invalid then, exact otherwise).
    func participantMeansReadingBoundsAsOutside(questionnaireId: String, studyId: String, label: String,
                                                from: Date?, to: Date?) async throws -> (means: [Int64: Double], valid: Bool) {
        let period = ComparisonSums.Means(from: from, to: to)
        return try await means(periodQuery(questionnaireId, studyId, label, period, snapshotDays: [nil, nil],
                                           outside: [period.to != nil, period.from != nil]))
    }

    private func means(_ query: PeriodQuery) async throws -> (means: [Int64: Double], valid: Bool) {
        let rows = try await client.query(PostgresQuery(unsafeSQL: query.sql + """
            SELECT v.valid, s.user_id, s.mean FROM valid v LEFT JOIN means s ON true
            """, binds: query.binds), logger: logger)
        var means: [Int64: Double] = [:]
        var valid = false
        for try await (isValid, userId, mean) in rows.decode((Bool, Int64?, Double?).self) {
            valid = isValid
            if let userId, let mean { means[userId] = mean }
        }
        return (means, valid)
    }

    /// The figures summed up in the statement: one row instead of 10,000 means, whose decoding
    /// took more time than the statement itself (all time at 10,000 participants: 21.9 → 12.1 ms p50 in `Scripts/bench/scale`).
    public func comparisonFigures(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                                  userId: Int64, now: Date) async throws -> ComparisonFigures {
        if let settled = try await settledPeriod(questionnaireId, studyId, label, from: from, to: to, now: now) {
            return settled.figures(for: userId)
        }
        if let open = try await sinceSettledBound(questionnaireId, studyId, label, from: from, to: to, now: now) {
            return ComparisonFigures(userIds: open.userIds, means: open.means, userId: userId)
        }
        let none = ComparisonFigures(participants: 0, sumOfMeans: 0, ownMean: nil, below: 0, equal: 0)
        return try await readPeriod(questionnaireId, studyId, label, from: from, to: to, now: now, empty: none) { query in
            var binds = query.binds
            binds.append(userId)
            // The own mean from the same CTEs filtered to the person (a few index lookups, the
            // same sums to the last bit), not a second pass over everyone's means.
            let rows = try await client.query(PostgresQuery(unsafeSQL: query.sql + """
                , own AS (SELECT mean FROM means WHERE user_id = $\(binds.count)::int8)
                SELECT v.valid, a.participants, a.total, (SELECT mean FROM own), a.below, a.equal FROM valid v
                CROSS JOIN (
                    SELECT COUNT(*) AS participants, COALESCE(SUM(m.mean), 0) AS total,
                           COUNT(*) FILTER (WHERE m.mean < (SELECT mean FROM own)) AS below,
                           COUNT(*) FILTER (WHERE m.mean = (SELECT mean FROM own)) AS equal
                    FROM means m) a
                """, binds: binds), logger: logger)
            for try await (valid, participants, total, own, below, equal) in rows.decode((Bool, Int64, Double, Double?, Int64, Int64).self) {
                return (ComparisonFigures(participants: Int(participants), sumOfMeans: total, ownMean: own, below: Int(below), equal: Int(equal)), valid)
            }
            return (none, false)
        }
    }

    /// A statement's start, up to the CTE `means`: each current member's mean in the period,
    /// and `valid`, whether the day snapshots it reads are there and current. The CTEs up to
    /// `means` are not materialized: a reader filtered to one person gets that person's rows by
    /// index (the filter is pushed into them), a reader of everyone one pass.
    struct PeriodQuery {
        var sql: String
        var binds: PostgresBindings
    }

    /// Reads a period with `read`, from day snapshots where the bounds may have them: built when
    /// missing or stale, then read again; only when a late upload came in between does the
    /// request read with a seek per participant.
    private func readPeriod<Result>(_ questionnaireId: String, _ studyId: String, _ label: String, from: Date?, to: Date?, now: Date,
                                    empty: Result, _ read: (PeriodQuery) async throws -> (Result, valid: Bool)) async throws -> Result {
        let period = ComparisonSums.Means(from: from, to: to)
        guard !period.periodIsEmpty else { return empty }
        let bounds = [period.to, period.from]
        // A `to` after the item's last sheet, or a `from` at or before its first, is everyone's
        // totals or nothing, like an open end: no snapshot is built or read for it. The read
        // checks the item's first and last sheet again in its own snapshot: a sheet stored
        // between here and there makes it invalid, and it is read with a seek per participant.
        let span = bounds.allSatisfy({ $0 == nil }) ? nil : try await rows("""
            SELECT MIN(started_at) AS first, MAX(started_at) AS last FROM comparison_running
            WHERE questionnaire_id = \(questionnaireId) AND label = \(label)
            """).first.map { (first: try $0.value("first") as Double?, last: try $0.value("last") as Double?) }
        let outside = [period.to.map { to in span?.last.map { $0 < to } ?? true } ?? false,
                       period.from.map { from in span?.first.map { from <= $0 } ?? true } ?? false]
        let days = zip(bounds, outside).map { bound, outside in
            outside ? nil : bound.flatMap { ComparisonSums.snapshotDay(for: $0, now: now) }
        }
        let wanted = Set(days.compactMap { $0 })
        if !wanted.isEmpty || outside.contains(true) {
            let first = try await read(periodQuery(questionnaireId, studyId, label, period, snapshotDays: days, outside: outside))
            if first.valid { return first.0 }
        }
        if !wanted.isEmpty {
            do {
                for day in wanted { try await buildSnapshot(questionnaireId, label, day: day, now: now) }
            } catch {
                // The request does not fail for it: it reads with a seek per participant.
                logger.error("comparison snapshot of \(questionnaireId)/\(label) not built: \(String(describing: error))")
            }
            let second = try await read(periodQuery(questionnaireId, studyId, label, period, snapshotDays: days, outside: outside))
            if second.valid { return second.0 }
        }
        return try await read(periodQuery(questionnaireId, studyId, label, period, snapshotDays: [nil, nil], outside: [false, false])).0
    }

    /// The period's sums per current member: each bound from its day snapshot (`snapshotDays`,
    /// for `to` and `from`: the snapshot joined with the last running row since its midnight,
    /// per participant), with a seek per participant without one, or nothing for an open end.
    /// A bound `outside` the item's sheets is read like an open end; `valid` then also says
    /// that it still lies outside them.
    private func periodQuery(_ questionnaireId: String, _ studyId: String, _ label: String, _ period: ComparisonSums.Means,
                             snapshotDays days: [Int64?], outside: [Bool]) -> PeriodQuery {
        var binds = PostgresBindings(capacity: 10)
        binds.append(questionnaireId)
        binds.append(label)
        binds.append(studyId)
        binds.append(Array(Set(days.compactMap { $0 })))  // both bounds may fall on one day
        func parameter(_ value: some PostgresNonThrowingEncodable, _ type: String) -> String {
            binds.append(value)
            return "$\(binds.count)::\(type)"
        }
        var parts: [(with: String, join: String, total: String, count: String)] = []
        var stillOutside = ""
        for (index, (given, day)) in zip([period.to, period.from], days).enumerated() {
            let name = index == 0 ? "before_to" : "before_from"
            guard let given else {
                // An open end: everything (`to`) or nothing (`from`) lies before it.
                parts.append(("", "", index == 0 ? "t.total" : "0", index == 0 ? "t.count" : "0"))
                continue
            }
            let bound = parameter(given, "float8")
            if outside[index] {
                let (end, sign) = index == 0 ? ("MAX", "<") : ("MIN", ">=")
                stillOutside += """
                     AND COALESCE((SELECT \(end)(started_at) FROM comparison_running WHERE questionnaire_id = $1 AND label = $2) \(sign) \(bound), true)
                    """
                parts.append(("", "", index == 0 ? "t.total" : "0", index == 0 ? "t.count" : "0"))
            } else if let day {
                let midnight = parameter(Double(day) * ComparisonSums.secondsPerDay, "float8")
                parts.append(("""
                    , \(name)_snapshot AS NOT MATERIALIZED (
                        SELECT user_id, total, count FROM comparison_snapshots WHERE questionnaire_id = $1 AND label = $2 AND day = \(parameter(day, "int8"))
                    ), \(name)_partial AS NOT MATERIALIZED (
                        SELECT DISTINCT ON (user_id) user_id, total, count FROM comparison_running
                        WHERE questionnaire_id = $1 AND label = $2 AND started_at >= \(midnight) AND started_at < \(bound)
                        ORDER BY user_id, count DESC
                    )
                    """, """
                    LEFT JOIN \(name)_snapshot \(name)_s ON \(name)_s.user_id = t.user_id
                    LEFT JOIN \(name)_partial \(name)_p ON \(name)_p.user_id = t.user_id
                    """, "COALESCE(\(name)_p.total, \(name)_s.total, 0)", "COALESCE(\(name)_p.count, \(name)_s.count, 0)"))
            } else {
                parts.append(("", """
                    LEFT JOIN LATERAL (
                        \(ComparisonSums.lastRunningRow("r.total, r.count", before: bound,
                                                        if: "t.first_started < \(bound) AND \(bound) <= t.last_started"))
                    ) \(name) ON true
                    """,
                    "CASE WHEN \(bound) <= t.first_started THEN 0 WHEN t.last_started < \(bound) THEN t.total ELSE \(name).total END",
                    "CASE WHEN \(bound) <= t.first_started THEN 0 WHEN t.last_started < \(bound) THEN t.count ELSE \(name).count END"))
            }
        }
        let (upper, lower) = (parts[0], parts[1])
        let sql = """
            WITH valid AS (
                SELECT COUNT(*) = cardinality($4::int8[])\(stillOutside) AS valid FROM comparison_snapshot_days d
                WHERE d.questionnaire_id = $1 AND d.label = $2 AND d.day = ANY($4::int8[])
                  AND d.version = COALESCE((SELECT version FROM comparison_versions WHERE questionnaire_id = $1 AND label = $2), 0)
            )\(upper.with)\(lower.with), sums AS NOT MATERIALIZED (
                SELECT t.user_id, \(upper.total) - \(lower.total) AS total, \(upper.count) - \(lower.count) AS count,
                       (\(upper.total))::float8 AS upper_total, (\(upper.count))::int8 AS upper_count,
                       (\(lower.total))::float8 AS lower_total, (\(lower.count))::int8 AS lower_count
                FROM comparison_totals t
                \(upper.join)
                \(lower.join)
                WHERE t.questionnaire_id = $1 AND t.label = $2 AND t.member
                  AND EXISTS (SELECT FROM questionnaires WHERE id = $1 AND study_id = $3)
            ), means AS NOT MATERIALIZED (
                SELECT user_id, total / count AS mean FROM sums WHERE count > 0
            )
            """
        return PeriodQuery(sql: sql + "\n", binds: binds)
    }

    /// Builds (or rebuilds, when stale) the snapshot of the item's sums before the midnight
    /// starting `day`: every participant with a sheet before it, from the totals or the running
    /// row before it. One builder per snapshot at a time (an advisory lock); the version and the
    /// rows are read in one statement, so a late upload committing meanwhile leaves it stale, not
    /// wrong. Drops the item's snapshots not built for a week.
    private func buildSnapshot(_ questionnaireId: String, _ label: String, day: Int64, now: Date) async throws {
        let today = Int64(ComparisonSums.dayStart(of: now) / ComparisonSums.secondsPerDay)
        let midnight = Double(day) * ComparisonSums.secondsPerDay
        let name = "\(questionnaireId)\n\(label)\n\(day)"
        let expired = today - ComparisonSums.snapshotLifetimeDays
        try await transaction { connection in
            try await connection.query("""
                SELECT pg_advisory_xact_lock(\(PersonLock.comparisonSnapshots.rawValue), hashtext(\(name)))
                """, logger: logger)
            // Built by another request meanwhile: nothing to do.
            let current = try await connection.query("""
                SELECT 1 FROM comparison_snapshot_days d
                WHERE d.questionnaire_id = \(questionnaireId) AND d.label = \(label) AND d.day = \(day)
                  AND d.version = COALESCE((SELECT version FROM comparison_versions
                                            WHERE questionnaire_id = \(questionnaireId) AND label = \(label)), 0)
                """, logger: logger)
            for try await _ in current { return }
            try await connection.query("""
                DELETE FROM comparison_snapshots WHERE questionnaire_id = \(questionnaireId) AND label = \(label) AND day = \(day)
                """, logger: logger)
            var binds = PostgresBindings(capacity: 5)
            binds.append(questionnaireId)
            binds.append(label)
            binds.append(day)
            binds.append(midnight)
            binds.append(today)
            try await connection.query(PostgresQuery(unsafeSQL: """
                WITH v AS (
                    SELECT COALESCE((SELECT version FROM comparison_versions WHERE questionnaire_id = $1 AND label = $2), 0) AS version
                ), rows AS (
                    INSERT INTO comparison_snapshots (questionnaire_id, label, day, user_id, total, count)
                    SELECT t.questionnaire_id, t.label, $3, t.user_id,
                           CASE WHEN t.last_started < $4 THEN t.total ELSE r.total END,
                           CASE WHEN t.last_started < $4 THEN t.count ELSE r.count END
                    FROM comparison_totals t
                    LEFT JOIN LATERAL (\(ComparisonSums.lastRunningRow("r.total, r.count", before: "$4", if: "t.last_started >= $4"))) r ON true
                    WHERE t.questionnaire_id = $1 AND t.label = $2 AND t.first_started < $4
                )
                INSERT INTO comparison_snapshot_days (questionnaire_id, label, day, version, built_on)
                SELECT $1, $2, $3, v.version, $5 FROM v
                ON CONFLICT (questionnaire_id, label, day) DO UPDATE SET version = excluded.version, built_on = excluded.built_on
                """, binds: binds), logger: logger)
            try await connection.query("""
                DELETE FROM comparison_snapshots s USING comparison_snapshot_days d
                WHERE d.questionnaire_id = \(questionnaireId) AND d.label = \(label) AND d.built_on < \(expired)
                  AND s.questionnaire_id = d.questionnaire_id AND s.label = d.label AND s.day = d.day
                """, logger: logger)
            try await connection.query("""
                DELETE FROM comparison_snapshot_days
                WHERE questionnaire_id = \(questionnaireId) AND label = \(label) AND built_on < \(expired)
                """, logger: logger)
        }
    }

    /// SQL: whether the person is a current member of the study that owns the questionnaire
    /// (`comparison_totals.member`), both given as SQL expressions. The server deletes no
    /// membership, study or questionnaire; code that one day does must update or delete the
    /// totals rows concerned in the same transaction, as ``setMembership`` does.
    static func currentMember(questionnaire: String, user: String) -> String {
        """
        EXISTS (SELECT FROM questionnaires q JOIN memberships m ON m.study_id = q.study_id
                WHERE q.id = \(questionnaire) AND m.user_id = \(user) AND m.status = 'member')
        """
    }

    public func rebuildComparisonSums() async throws {
        try await transaction { connection in
            // Every item's version is raised, also of an item the rebuild leaves without sums: a
            // period kept in any process's memory (``SettledCache``) is read again.
            try await connection.query("""
                INSERT INTO comparison_versions (questionnaire_id, label, version)
                SELECT DISTINCT questionnaire_id, label, 0 FROM comparison_totals ORDER BY 1, 2 ON CONFLICT DO NOTHING
                """, logger: logger)
            try await connection.query("UPDATE comparison_versions SET version = version + 1", logger: logger)
            try await connection.query("DELETE FROM comparison_totals", logger: logger)
            try await connection.query("DELETE FROM comparison_running", logger: logger)
            try await connection.query("DELETE FROM comparison_snapshots", logger: logger)
            try await connection.query("DELETE FROM comparison_snapshot_days", logger: logger)
            // The migration `pg5` keeps its own frozen copy of the fill, as a shipped step never changes.
            let fill = ComparisonSums.fillSQL(totalsColumn: ("member", Self.currentMember(questionnaire: "s.questionnaire_id", user: "s.user_id")))
            for statement in PostgreSQLMigrations.statements(fill + ";\n") {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("""
                INSERT INTO comparison_versions (questionnaire_id, label, version)
                SELECT DISTINCT questionnaire_id, label, 1 FROM comparison_totals ORDER BY 1, 2 ON CONFLICT DO NOTHING
                """, logger: logger)
            // Fresh statistics for the planner: every row of both tables is new.
            try await connection.query("ANALYZE comparison_totals, comparison_running", logger: logger)
        }
    }
}

extension PostgreSQLServerStore {
    /// Whom an item's comparison counts changed (`comparison_totals.member`): its version is
    /// raised (in the order of the items, as a late upload raises it), so a settled period kept in
    /// memory is read again (``SettledCache``). The day snapshots hold everyone's sums, members or
    /// not: the current ones stay current. Runs under the person's sheet lock: an upload storing
    /// the person's first sheet of one of the study's questionnaires sets `member` from the
    /// membership it reads, so it must not run between the change and this update.
    func membershipChanged(_ db: any SQLExecutor, studyId: String, userId: Int64, member: Bool) async throws {
        try await db.execute("""
            WITH changed AS (
                UPDATE comparison_totals SET member = \(member)
                WHERE user_id = \(userId) AND member <> \(member)
                  AND questionnaire_id IN (SELECT id FROM questionnaires WHERE study_id = \(studyId))
                RETURNING questionnaire_id, label
            ), raised AS (
                INSERT INTO comparison_versions (questionnaire_id, label, version)
                SELECT DISTINCT questionnaire_id, label, 1 FROM changed ORDER BY 1, 2
                ON CONFLICT (questionnaire_id, label) DO UPDATE SET version = comparison_versions.version + 1
                RETURNING questionnaire_id, label, version
            )
            UPDATE comparison_snapshot_days d SET version = r.version FROM raised r
            WHERE d.questionnaire_id = r.questionnaire_id AND d.label = r.label AND d.version = r.version - 1
            """)
    }
}
