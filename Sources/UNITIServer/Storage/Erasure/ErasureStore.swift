import Foundation

/// Deleting a person's data for real: the rows go (not a flag), in one transaction, so export,
/// comparison and adherence read them no more from the moment it commits; then the engine is
/// asked to drop the bytes from its files (``StoreDatabase/reclaimErasedSpace(tables:)``; what
/// that guarantees on each store is written down in `Documentation/uniti-server.md`, "Deletion").
///
/// The person's tables are named once, in ``erasedTables``; a test reads the schema and fails
/// when a table with a `user_id` is missing there, as the download's list is checked.
extension ServerStore {
    /// Every table with people's rows, in the order a person's rows are deleted (children
    /// first). A module part's own tables (``ServerModulePart/personalTables``) come before `users`.
    var personalTables: [String] {
        ["answers", "comparison_totals", "answer_sheets", "member_tallies", "module_records", "sessions", "mail_tokens",
         "study_password_failures", "consent_agreements", "prompt_events", "prompts", "prompt_tallies", "alerts", "allocations", "screenings", "member_sites", "memberships"]
            + modules.personalTables + ["users"]
    }

    /// Of ``personalTables``, those whose rows stay without the person (`user_id` set to NULL)
    /// rather than go: a trial's allocation is part of a sequence that every later allocation and
    /// `randomisation verify` depend on (``TrialSchema``); a screening is a count of the
    /// screening log and the CONSORT flow, its answers going with the person (``ScreeningSchema``).
    static let unlinkedTables: [String: SQL] = ["allocations": "user_id = NULL", "screenings": "user_id = NULL, answers = NULL"]

    /// ``personalTables``, each with the condition that selects the person's rows: answers
    /// through their sheets, the account by its id, every other table by `user_id`.
    func erasedTables(userId: Int64) -> [(table: String, condition: SQL)] {
        personalTables.map { table in
            switch table {
            case "answers": (table, "sheet_id IN (SELECT id FROM answer_sheets WHERE user_id = \(userId))")
            case "users": (table, "id = \(userId)")
            default: (table, "user_id = \(userId)")
            }
        }
    }

    /// Deletes the account and everything kept about the person, throttle counts under their
    /// account, names and address included, then has the engine drop the bytes. False when there
    /// is no such account. The lines `recording` makes of the studies the person had a
    /// membership of (in any standing) and of their pseudonym are appended in the same
    /// transaction, at `now`.
    func deleteAccount(userId: Int64, now: Date,
                       recording: @escaping @Sendable (_ studies: [String], _ pseudonym: String) -> [AuditRecord] = { _, _ in [] }) async throws -> Bool {
        let tables = erasedTables(userId: userId)
        let deleted = try await database.transaction { db in
            try await db.lock(.person(userId, .sheets))
            try await db.lock(.person(userId, .records))
            guard let account = try await db.row("\(Accounts.select) WHERE id = \(userId)").map(Accounts.account) else { return false }
            let studies: [String] = try await db.rows("SELECT study_id FROM memberships WHERE user_id = \(userId) ORDER BY study_id")
                .map { try $0["study_id"] }
            try await Self.appendAudit(db, recording(studies, account.pseudonym), now: now)
            for (table, condition) in tables {
                if let unlinked = Self.unlinkedTables[table] {
                    try await db.execute("UPDATE \(raw: table) SET \(unlinked) WHERE \(condition)")
                } else {
                    try await db.execute("DELETE FROM \(raw: table) WHERE \(condition)")
                }
            }
            // The throttles count under these keys (``LoginThrottle``, ``MailRequestThrottle``).
            let email = account.email.lowercased()
            let keys = ["login:account:\(userId)", "login:name:\(account.username.lowercased())", "login:name:\(email)",
                        "register:address:\(email)", "reset:address:\(email)", "reset-mail:\(email)"]
            try await db.execute("DELETE FROM throttle_counts WHERE key IN (\(list: keys))")
            try await Self.countErasure(db)
            return true
        }
        if deleted { try await database.reclaimErasedSpace(tables: tables.map(\.table) + ["throttle_counts"]) }
        return deleted
    }

    /// Rewrites the tables with people's rows (``personalTables``, `throttle_counts`), so
    /// that no byte of a deleted row stays in their files: PostgreSQL's `VACUUM FULL` writes each
    /// table anew (its old files go at the next checkpoint), locking it meanwhile, then takes
    /// fresh statistics from the rows left and rewrites `pg_statistic`: the planner's samples
    /// (most common values, histograms) can hold a deleted value until then; SQLite's
    /// `VACUUM` rewrites the file (its `secure_delete` has zeroed deleted rows already). For
    /// `uniti-server maintenance compact`, run when the server is quiet.
    ///
    /// With `ifNeeded`, only when an erasure was made since the last compaction (``ErasureSchema``):
    /// the nightly timer (`Deploy/systemd/uniti-server-compact.timer`) locks the tables only on
    /// nights that need it. Returns whether it compacted. `waiting`: how long it waits for older
    /// transactions before each rewrite (``waitForOlderTransactions(timeout:)``).
    @discardableResult
    func compactPersonalTables(ifNeeded: Bool = false, waiting: Duration = .seconds(120)) async throws -> Bool {
        // Read before compacting: an erasure made meanwhile stays counted as not compacted.
        guard let marks = try await database.row("SELECT erasures, compacted FROM erasure_marks WHERE id = 1") else {
            throw StoreCorruption("erasure_marks has no row")
        }
        let erasures: Int64 = try marks["erasures"], compacted: Int64 = try marks["compacted"]
        if ifNeeded, compacted >= erasures { return false }
        let tables = personalTables + ["throttle_counts"]
        switch database.dialect {
        case .sqlite:
            try await database.execute("VACUUM")
        case .postgres:
            // VACUUM FULL copies a deleted row that some running transaction may still need:
            // its own snapshot's oldest xid is the oldest running in the whole cluster (another
            // database's long transaction counts), and a snapshot of this database counts too.
            // So each rewrite starts once every transaction older than what it must drop has
            // ended: the erasures (committed before this point) for the tables, the ANALYZE
            // that replaced their statistics for `pg_statistic` (the planner's samples: most
            // common values and histograms can hold a deleted value). Measured under the whole
            // test suite's load: without the waits a deleted note stayed in pg_statistic in most
            // runs, copied as "recently dead" behind other databases' transactions.
            try await waitForOlderTransactions(timeout: waiting)
            try await database.execute(SQL(raw: "VACUUM (FULL, ANALYZE) " + tables.joined(separator: ", ")))
            try await waitForOlderTransactions(timeout: waiting)
            try await database.execute("VACUUM FULL pg_statistic")
        }
        try await database.reclaimErasedSpace(tables: [])
        try await database.execute("UPDATE erasure_marks SET compacted = \(erasures) WHERE id = 1 AND compacted < \(erasures)")
        return true
    }

    /// Waits until no transaction of the cluster that began before this call is running, and no
    /// session of this database holds a snapshot from before it; after `timeout`, throws
    /// ``CompactionWaited`` naming the sessions still holding on (nothing is marked compacted,
    /// so `--if-needed` compacts at its next run).
    func waitForOlderTransactions(timeout: Duration = .seconds(120)) async throws {
        guard let markRow = try await database.row("SELECT CAST(pg_snapshot_xmax(pg_current_snapshot()) AS text) AS mark") else { return }
        let mark: String = try markRow["mark"]
        let start = ContinuousClock.now
        while true {
            // The oldest running xid of the cluster is the current snapshot's xmin (no
            // privilege needed); a session's snapshot is in pg_stat_activity.
            let running = try await database.row("""
                SELECT CAST(pg_snapshot_xmin(pg_current_snapshot()) < CAST(\(mark) AS xid8) AS text) AS older
                """)
            let olderRunning: String = try running?["older"] ?? "false"
            var holding = try await database.rows("""
                SELECT CAST(pid AS text) AS pid FROM pg_stat_activity
                WHERE pid <> pg_backend_pid() AND datname = current_database()
                  AND ((backend_xmin IS NOT NULL AND age(backend_xmin) > age(xid(CAST(\(mark) AS xid8))))
                       OR (backend_xid IS NOT NULL AND age(backend_xid) > age(xid(CAST(\(mark) AS xid8)))))
                """).map { row -> String in "session \(try row["pid"] as String)" }
            if olderRunning == "true" { holding.append("a transaction of another database or user") }
            if holding.isEmpty { return }
            if ContinuousClock.now - start >= timeout { throw CompactionWaited(sessions: holding, timeout: timeout) }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Counts an erasure, in the transaction that makes it (``compactPersonalTables(ifNeeded:)``).
    private static func countErasure(_ db: any SQLExecutor) async throws {
        try await db.execute("UPDATE erasure_marks SET erasures = erasures + 1 WHERE id = 1")
    }

    /// Ends the person's membership of a study (status `left`); with `deleteAnswers`, their
    /// sheets for the study, the answers and the comparison totals those fed go in the same
    /// transaction (a questionnaire belongs to one study, so the person's totals of the study's
    /// questionnaires came from these sheets alone, and the comparison stays exact), and so do
    /// their prompts of the study's questionnaires, so adherence no longer counts them, and the
    /// alerts about them in the study.
    /// `recording`: the line that says so, appended in the same transaction.
    func leaveStudy(userId: Int64, studyId: String, deleteAnswers: Bool, now: Date, recording: AuditRecord? = nil) async throws {
        let studySheets: SQL = "SELECT id FROM answer_sheets WHERE user_id = \(userId) AND study_id = \(studyId)"
        let studyQuestionnaires: SQL = "SELECT questionnaire_id FROM questionnaire_links WHERE study_id = \(studyId)"
        let erased = ["answers", "comparison_totals", "answer_sheets", "member_tallies", "prompt_events", "prompts", "prompt_tallies", "alerts"]
        try await database.transaction { db in
            if deleteAnswers {
                try await db.lock(.person(userId, .sheets))
                try await db.execute("""
                    DELETE FROM comparison_totals WHERE user_id = \(userId) AND questionnaire_id IN
                        (SELECT DISTINCT questionnaire_id FROM answer_sheets WHERE user_id = \(userId) AND study_id = \(studyId))
                    """)
                try await db.execute("DELETE FROM answers WHERE sheet_id IN (\(studySheets))")
                try await db.execute("DELETE FROM answer_sheets WHERE user_id = \(userId) AND study_id = \(studyId)")
                try await db.execute("DELETE FROM prompt_events WHERE user_id = \(userId) AND questionnaire_id IN (\(studyQuestionnaires))")
                try await db.execute("DELETE FROM prompts WHERE user_id = \(userId) AND questionnaire_id IN (\(studyQuestionnaires))")
                try await db.execute("DELETE FROM alerts WHERE user_id = \(userId) AND study_id = \(studyId)")
                try await Self.countErasure(db)
            }
            try await Self.setMembership(db, studyId: studyId, userId: userId, status: .left, now: now)
            try await Self.appendAudit(db, recording.map { [$0] } ?? [], now: now)
        }
        if deleteAnswers { try await database.reclaimErasedSpace(tables: erased) }
    }
}

/// A compaction that could not begin: transactions older than what it must remove were still
/// running (they would have kept the removed rows in the rewritten files).
struct CompactionWaited: Error, CustomStringConvertible {
    let sessions: [String]
    let timeout: Duration
    var description: String {
        "Not compacted: after \(timeout.components.seconds) s, transactions older than the erasures still run (\(sessions.joined(separator: ", "))); run the compaction again when they have ended."
    }
}
