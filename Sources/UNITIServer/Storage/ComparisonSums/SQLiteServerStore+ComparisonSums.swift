import Foundation
import GRDB
import Logging
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

    /// `v10-comparison-snapshots`: day snapshots of every participant's sums (built on first use;
    /// see ``ComparisonSums``), the items' versions that mark them stale, and the running rows by
    /// start, so the sheets between a snapshot's midnight and a bound are one range scan. A
    /// study's members in participant order, so the comparison merges them with the totals
    /// instead of seeking each participant's membership (14 of 20 ms at 10,000 participants).
    static func v10(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE comparison_versions (
                questionnaire_id TEXT NOT NULL,
                label TEXT NOT NULL,
                version INTEGER NOT NULL,
                PRIMARY KEY (questionnaire_id, label)
            ) WITHOUT ROWID;
            CREATE TABLE comparison_snapshot_days (
                questionnaire_id TEXT NOT NULL,
                label TEXT NOT NULL,
                day INTEGER NOT NULL,
                version INTEGER NOT NULL,
                built_on INTEGER NOT NULL,
                PRIMARY KEY (questionnaire_id, label, day)
            ) WITHOUT ROWID;
            CREATE TABLE comparison_snapshots (
                questionnaire_id TEXT NOT NULL,
                label TEXT NOT NULL,
                day INTEGER NOT NULL,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                total REAL NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (questionnaire_id, label, day, user_id)
            ) WITHOUT ROWID;
            CREATE INDEX comparison_snapshots_user ON comparison_snapshots(user_id);
            CREATE INDEX comparison_running_time ON comparison_running(questionnaire_id, label, started_at, user_id, total, count);
            CREATE INDEX memberships_study_status ON memberships(study_id, status, user_id);
            """)
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
    /// it, and adds itself to every later row of the participant. An answer started before the
    /// day it is received on also goes into the day snapshots (``addLateAnswersToSnapshots``).
    static func addComparisonSums(_ db: Database, userId: Int64, stored: [(sheetId: Int64, sheet: AnswerSheet)], receivedAt: Date) throws {
        let entries = ComparisonSums.entries(of: stored)
        guard !entries.isEmpty else { return }
        try addLateAnswersToSnapshots(db, userId: userId, ComparisonSums.lateItems(entries, receivedAt: receivedAt))
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

    /// A late answer (started before the current UTC day) changes the sums before midnights that
    /// may have snapshots: the item's version goes up; the snapshots that were current get the
    /// answer added and the new version; any others stay stale, rebuilt when next needed.
    static func addLateAnswersToSnapshots(_ db: Database, userId: Int64,
                                          _ late: [(questionnaireId: String, label: String, entries: [ComparisonSums.Entry])]) throws {
        guard !late.isEmpty else { return }
        let bump = try db.cachedStatement(sql: """
            INSERT INTO comparison_versions (questionnaire_id, label, version) VALUES (:q, :label, 1)
            ON CONFLICT (questionnaire_id, label) DO UPDATE SET version = version + 1
            RETURNING version
            """)
        let addToSnapshots = try db.cachedStatement(sql: """
            INSERT INTO comparison_snapshots (questionnaire_id, label, day, user_id, total, count)
            SELECT questionnaire_id, label, day, :user, :number, 1 FROM comparison_snapshot_days
            WHERE questionnaire_id = :q AND label = :label AND version = :old AND day * 86400 > :started
            ON CONFLICT (questionnaire_id, label, day, user_id) DO UPDATE SET total = total + excluded.total, count = count + 1
            """)
        let retag = try db.cachedStatement(sql: """
            UPDATE comparison_snapshot_days SET version = :new WHERE questionnaire_id = :q AND label = :label AND version = :old
            """)
        for item in late {
            let key: StatementArguments = ["q": item.questionnaireId, "label": item.label]
            guard let version = try Int64.fetchOne(bump, arguments: key) else {
                throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "the comparison version's upsert returned no row")
            }
            for entry in item.entries {
                try addToSnapshots.execute(arguments: key + ["user": userId, "number": entry.number, "old": version - 1, "started": entry.startedAt])
            }
            try retag.execute(arguments: key + ["new": version, "old": version - 1])
        }
    }

    public func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                                 now: Date) async throws -> [Int64: Double] {
        let period = ComparisonSums.Means(from: from, to: to)
        guard !period.periodIsEmpty else { return [:] }
        let item = ComparisonItem(questionnaireId: questionnaireId, studyId: studyId, label: label)
        let days = [period.to, period.from].map { $0.flatMap { ComparisonSums.snapshotDay(for: $0, now: now) } }
        let wanted = Set(days.compactMap { $0 })
        if !wanted.isEmpty {
            if let means = try await pool.read({ db in try Self.means(db, item, period, snapshotDays: days) }) { return means }
            // A snapshot is missing or stale: build it, then read again. Only when another late
            // upload came in between does this request read with a seek per participant.
            do {
                try await sqlite.write { db in
                    for day in wanted { try Self.buildSnapshot(db, item, day: day, now: now) }
                }
            } catch {
                // The request does not fail for it: it reads with a seek per participant.
                Logger(label: "uniti-server.comparison").error(
                    "comparison snapshot of \(questionnaireId)/\(label) not built: \(String(describing: error))")
            }
        }
        return try await pool.read { db in
            if !wanted.isEmpty, let means = try Self.means(db, item, period, snapshotDays: days) { return means }
            return try Self.means(db, item, period, snapshotDays: [nil, nil]) ?? [:]
        }
    }

    struct ComparisonItem {
        var questionnaireId: String
        var studyId: String
        var label: String
    }

    /// The means of the period, each bound read from its day snapshot (`snapshotDays`, for `to`
    /// and `from`) or, without one, with a seek per participant; nil when a snapshot is missing
    /// or stale (checked in this same read transaction).
    static func means(_ db: Database, _ item: ComparisonItem, _ period: ComparisonSums.Means,
                      snapshotDays days: [Int64?]) throws -> [Int64: Double]? {
        let version = try Int64.fetchOne(db, sql: "SELECT version FROM comparison_versions WHERE questionnaire_id = ? AND label = ?",
                                         arguments: [item.questionnaireId, item.label]) ?? 0
        for day in Set(days.compactMap({ $0 })) {
            let built = try Int64.fetchOne(db, sql: """
                SELECT version FROM comparison_snapshot_days WHERE questionnaire_id = ? AND label = ? AND day = ?
                """, arguments: [item.questionnaireId, item.label, day])
            guard built == version else { return nil }
        }
        let bounds = [("to", period.to, days[0]), ("from", period.from, days[1])]
        // Per participant the totals row and, for a bound without a snapshot, only where some but
        // not all sheets lie before it, the running row of the last sheet before it (a seek per value).
        let lookups = bounds.map { bound, given, day -> String in
            ["total", "count"].map { column -> String in
                guard given != nil, day == nil else { return "NULL AS \(bound)_\(column)" }
                return """
                    CASE WHEN t.first_started < :\(bound) AND :\(bound) <= t.last_started THEN
                        (\(ComparisonSums.lastRunningRow("r.\(column)", before: ":\(bound)")))
                    END AS \(bound)_\(column)
                    """
            }.joined(separator: ", ")
        }
        let rows = try Row.fetchCursor(db, sql: """
            SELECT t.user_id, t.total, t.count, t.first_started, t.last_started, \(lookups.joined(separator: ", "))
            FROM comparison_totals t
            WHERE t.questionnaire_id = :q AND t.label = :label
            ORDER BY t.user_id
            """, arguments: ["q": item.questionnaireId, "label": item.label, "from": period.from, "to": period.to])
        // Members of the study that owns the questionnaire only (none for another study), as on PostgreSQL.
        let memberRows = try Int64.fetchCursor(db, sql: """
            SELECT user_id FROM memberships
            WHERE study_id = ? AND status = 'member' AND EXISTS (SELECT 1 FROM questionnaires WHERE id = ? AND study_id = ?)
            ORDER BY user_id
            """, arguments: [item.studyId, item.questionnaireId, item.studyId])
        var members = ComparisonSums.SortedRows<Void> { try memberRows.next().map { ($0, ()) } }
        // The snapshot bounds: the snapshot and the last running row since its midnight, per
        // participant, both in participant order (range scans, merged here with the totals).
        var snapshotBounds = try bounds.map { _, given, day -> ComparisonSums.SnapshotBound? in
            guard let given, let day else { return nil }
            func sorted(_ sql: String, _ arguments: StatementArguments) throws -> ComparisonSums.SortedSums {
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                return ComparisonSums.SortedRows {
                    try cursor.next().map { row in (row[0], ComparisonSums.Sum(total: row[1], count: row[2])) }
                }
            }
            // The last running row has the highest count: each row adds one answer.
            return ComparisonSums.SnapshotBound(
                partial: try sorted("""
                    SELECT user_id, total, MAX(count) FROM comparison_running
                    WHERE questionnaire_id = ? AND label = ? AND started_at >= ? AND started_at < ?
                    GROUP BY user_id ORDER BY user_id
                    """, [item.questionnaireId, item.label, Double(day) * ComparisonSums.secondsPerDay, given]),
                snapshot: try sorted("""
                    SELECT user_id, total, count FROM comparison_snapshots
                    WHERE questionnaire_id = ? AND label = ? AND day = ? ORDER BY user_id
                    """, [item.questionnaireId, item.label, day]))
        }
        var means = period
        // A bound's sum only where the participant needs it: a bound after everyone's last sheet
        // (a period until now) reads none of its snapshot. Columns by position, not by name: at
        // 10,000 rows × 9 columns the name lookups showed (all time, 12.1 → 8.8 ms p50).
        func sum(_ row: Row, _ first: Int, _ bound: Int, _ participant: ComparisonSums.Participant) throws -> ComparisonSums.Sum? {
            guard participant.needsLookup(before: bound == 0 ? period.to : period.from) else { return nil }
            if snapshotBounds[bound] != nil { return try snapshotBounds[bound]?.sum(for: participant.userId) }
            let total: Double? = row[first], count: Int64? = row[first + 1]
            guard let total, let count else { return nil }
            return ComparisonSums.Sum(total: total, count: count)
        }
        while let row = try rows.next() {
            guard try members.value(for: row[0]) != nil else { continue }
            let participant = ComparisonSums.Participant(userId: row[0], totals: ComparisonSums.Sum(total: row[1], count: row[2]),
                                                         firstStarted: row[3], lastStarted: row[4])
            means.add(participant, beforeTo: try sum(row, 5, 0, participant), beforeFrom: try sum(row, 7, 1, participant))
        }
        return means.means
    }

    /// Builds (or rebuilds, when stale) the snapshot of the item's sums before the midnight
    /// starting `day`, in a write transaction: every participant with a sheet before it, from
    /// the totals or the running row before it. Drops the item's snapshots not built for a week.
    static func buildSnapshot(_ db: Database, _ item: ComparisonItem, day: Int64, now: Date) throws {
        let key: StatementArguments = ["q": item.questionnaireId, "label": item.label, "day": day]
        let version = try Int64.fetchOne(db, sql: "SELECT version FROM comparison_versions WHERE questionnaire_id = :q AND label = :label",
                                         arguments: key) ?? 0
        let built = try Int64.fetchOne(db, sql: """
            SELECT version FROM comparison_snapshot_days WHERE questionnaire_id = :q AND label = :label AND day = :day
            """, arguments: key)
        guard built != version else { return }
        let today = Int64(ComparisonSums.dayStart(of: now) / ComparisonSums.secondsPerDay)
        let midnight = Double(day) * ComparisonSums.secondsPerDay
        try db.execute(sql: """
            DELETE FROM comparison_snapshots WHERE questionnaire_id = :q AND label = :label AND day = :day;
            INSERT INTO comparison_snapshots (questionnaire_id, label, day, user_id, total, count)
            SELECT t.questionnaire_id, t.label, :day, t.user_id, \(["total", "count"].map { column in """
                CASE WHEN t.last_started < :midnight THEN t.\(column) ELSE
                    (\(ComparisonSums.lastRunningRow("r.\(column)", before: ":midnight")))
                END
                """ }.joined(separator: ", "))
            FROM comparison_totals t
            WHERE t.questionnaire_id = :q AND t.label = :label AND t.first_started < :midnight;
            INSERT INTO comparison_snapshot_days (questionnaire_id, label, day, version, built_on) VALUES (:q, :label, :day, :version, :today)
            ON CONFLICT (questionnaire_id, label, day) DO UPDATE SET version = excluded.version, built_on = excluded.built_on;
            DELETE FROM comparison_snapshots WHERE questionnaire_id = :q AND label = :label AND day IN (
                SELECT day FROM comparison_snapshot_days WHERE questionnaire_id = :q AND label = :label AND built_on < :expired);
            DELETE FROM comparison_snapshot_days WHERE questionnaire_id = :q AND label = :label AND built_on < :expired
            """, arguments: key + ["midnight": midnight, "version": version, "today": today,
                                   "expired": today - ComparisonSums.snapshotLifetimeDays])
    }

    public func rebuildComparisonSums() async throws {
        try await sqlite.write { db in
            try db.execute(sql: """
                DELETE FROM comparison_totals; DELETE FROM comparison_running;
                DELETE FROM comparison_snapshots; DELETE FROM comparison_snapshot_days
                """)
            try ComparisonSumSchema.fill(db)
        }
    }
}

extension SQLiteServerStore {
    /// SQLite's comparison reads memberships as they are: nothing to keep.
    func membershipChanged(_ db: any SQLExecutor, studyId: String, userId: Int64, member: Bool) async throws {}
}
