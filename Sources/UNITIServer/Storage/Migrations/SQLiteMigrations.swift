import Foundation
import GRDB
import UNITIProtocol

/// The server's SQLite schema as named, append-only steps, in the one order they run.
///
/// The steps are grouped by the concern whose tables they create (``AccountSchema`` …, below);
/// this list orders them. Never rename, reorder or edit a step that shipped — existing databases
/// have recorded it by its identifier; add a new step. The PostgreSQL schema has its own steps
/// (``PostgreSQLMigrations``) with the same tables, columns and meaning.
enum SQLiteMigrations {
    /// The server's steps, then each module part's (``ServerModules/migrations``).
    static func migrator(modules: ServerModules) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-accounts", migrate: AccountSchema.v1)
        migrator.registerMigration("v1-studies") { db in
            try StudySchema.v1(db)
            try QuestionnaireSchema.v1(db)
        }
        migrator.registerMigration("v1-sheets", migrate: SheetSchema.v1)
        migrator.registerMigration("v1-module-records", migrate: RecordSchema.v1)
        migrator.registerMigration("v2-module-resources", migrate: ModuleResourceSchema.v2)
        migrator.registerMigration("v3-answer-sheets-by-user", migrate: SheetSchema.v3)
        migrator.registerMigration("v4-memberships-joined-at", migrate: StudySchema.v4)
        migrator.registerMigration("v4-questionnaire-links") { try QuestionnaireSchema.v4($0, modules: modules) }
        migrator.registerMigration("v5-study-rewards", migrate: StudySchema.v5)
        migrator.registerMigration("v5-sheet-reward-times", migrate: SheetSchema.v5)
        migrator.registerMigration("v6-server-secrets", migrate: ServerSecretSchema.v6)
        migrator.registerMigration("v6-study-password-failures", migrate: StudyPasswordFailureSchema.v6)
        migrator.registerMigration("v7-login-failures", migrate: LoginFailureSchema.v7)
        migrator.registerMigration("v8-comparison-sums", migrate: ComparisonSumSchema.v8)
        migrator.registerMigration("v9-comparison-running", migrate: ComparisonSumSchema.v9)
        migrator.registerMigration("v10-comparison-snapshots", migrate: ComparisonSumSchema.v10)
        migrator.registerMigration("v11-session-refresh-grace", migrate: AccountSchema.v11)
        migrator.registerMigration("v12-throttle-counts", migrate: ThrottleSchema.v12)
        migrator.registerMigration("v12-mail-tokens-cancelled", migrate: AccountSchema.v12)
        migrator.registerMigration("v12-study-password-minimum", migrate: StudySchema.v12)
        migrator.registerMigration("v13-comparison-in-proportion", migrate: ComparisonSumSchema.v13)
        migrator.registerMigration("v14-consent-versions", migrate: ConsentSchema.v14)
        migrator.registerMigration("v15-prompt-events") { db in try db.execute(sql: PromptSchema.v15) }
        migrator.registerMigration("v16-staff-console") { db in try db.execute(sql: StaffSchema.v16) }
        migrator.registerMigration("v17-erasure-marks") { db in try db.execute(sql: ErasureSchema.v17) }
        migrator.registerMigration("v18-audit-participants") { db in try db.execute(sql: TeamSchema.v18Participants) }
        migrator.registerMigration("v18-study-invitations") { db in try db.execute(sql: TeamSchema.v18Invitations) }
        migrator.registerMigration("v19-study-module-switches") { db in try db.execute(sql: StudySwitchSchema.v19) }
        migrator.registerMigration("v20-alerts") { db in try db.execute(sql: AlertSchema.v20) }
        migrator.registerMigration("v21-tallies") { db in try db.execute(sql: TallySchema.v21) }
        migrator.registerMigration("v22-trials") { db in try db.execute(sql: TrialSchema.v22) }
        migrator.registerMigration("v23-trial-blinding") { db in try db.execute(sql: TrialSchema.v23) }
        migrator.registerMigration("v24-sites") { db in try db.execute(sql: SiteSchema.v24) }
        migrator.registerMigration("v25-screening") { db in try db.execute(sql: ScreeningSchema.v25) }
        migrator.registerMigration("v26-languages") { db in try db.execute(sql: LanguageSchema.v26) }
        for (identifier, step) in modules.migrations {
            migrator.registerMigration(identifier) { db in try db.execute(sql: step.sqlite) }
        }
        return migrator
    }
}

/// The table behind ``RecordStore``.
enum RecordSchema {
    /// `v1-module-records`. `sequence` is the pull cursor: a change takes the next number, so a
    /// record changed again moves behind the cursors handed out before.
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE module_records (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                module_id TEXT NOT NULL,
                client_id TEXT NOT NULL,
                updated_at REAL NOT NULL,
                deleted INTEGER NOT NULL,
                payload TEXT,
                sequence INTEGER NOT NULL,
                PRIMARY KEY (user_id, module_id, client_id)
            );
            CREATE INDEX module_records_cursor ON module_records(user_id, sequence);
            """)
    }
}

/// The table behind ``ModuleResourceStore``.
enum ModuleResourceSchema {
    /// `v2-module-resources`.
    static func v2(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE module_resources (
                module_id TEXT NOT NULL,
                name TEXT NOT NULL,
                content TEXT NOT NULL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (module_id, name)
            );
            """)
    }
}

/// The table behind ``ServerSecretStore``.
enum ServerSecretSchema {
    /// `v6-server-secrets`: server-wide keys, one row per name, never per user.
    static func v6(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE server_secrets (
                name TEXT PRIMARY KEY,
                value BLOB NOT NULL,
                created_at REAL NOT NULL
            )
            """)
    }
}

/// The tables behind ``SheetStore``.
enum SheetSchema {
    /// `v1-sheets`: the sheets as sent, and their answers one per row for the aggregates.
    /// `answer_sheets.id` (AUTOINCREMENT, so never reused) is the sequence of ``SheetStore/sheetChanges(userId:after:limit:)``.
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE answer_sheets (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                client_id TEXT NOT NULL,
                study_id TEXT NOT NULL,
                questionnaire_id TEXT NOT NULL,
                questionnaire_version INTEGER NOT NULL,
                started_at REAL NOT NULL,
                ended_at REAL,
                received_at REAL NOT NULL,
                sheet TEXT NOT NULL,
                UNIQUE (user_id, client_id)
            );
            CREATE TABLE answers (
                sheet_id INTEGER NOT NULL REFERENCES answer_sheets(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                label TEXT NOT NULL,
                value TEXT NOT NULL,
                number REAL,
                answered_at TEXT NOT NULL,
                PRIMARY KEY (sheet_id, position)
            );
            CREATE INDEX answers_label ON answers(label);
            CREATE INDEX sheets_questionnaire ON answer_sheets(questionnaire_id, started_at);
            """)
    }

    /// `v3-answer-sheets-by-user`: one person's sheets in sequence order without reading everyone's
    /// (the changes route; the index holds the row id, so `user_id = ? AND id > ? ORDER BY id` is a range).
    static func v3(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX answer_sheets_user ON answer_sheets(user_id)")
    }

    /// `v5-sheet-reward-times`: what Track Your Hearing rewards read of a sheet, so that they need
    /// not decode every sheet: `finished_at`, the sheet's `endedAt` else `startedAt` as sent (ISO
    /// 8601 with the person's offset, which decides the local day); `is_partial`; `reminded_at`
    /// (UTC seconds), the reminder that prompted the sheet when it is possible, else NULL
    /// (the sheet's JSON keeps what was sent). Sheets stored before get them from their JSON.
    /// `v19-study-module-switches` drops `reminded_at` again: the rewards read the reminder from
    /// the sheet's JSON (``StudySwitchSchema``).
    static func v5(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE answer_sheets ADD COLUMN finished_at TEXT;
            ALTER TABLE answer_sheets ADD COLUMN is_partial INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE answer_sheets ADD COLUMN reminded_at REAL;
            UPDATE answer_sheets SET
                finished_at = COALESCE(json_extract(sheet, '$.endedAt'), json_extract(sheet, '$.startedAt')),
                is_partial = COALESCE(json_extract(sheet, '$.isPartial'), 0);
            """)
        // Only sheets sent since `remindedAt` exists have one; the limit of 300 s is this step's,
        // written out so that the step never changes.
        let reminded = try Row.fetchAll(db, sql: """
            SELECT id, started_at, json_extract(sheet, '$.remindedAt') AS reminded FROM answer_sheets
            WHERE json_extract(sheet, '$.remindedAt') IS NOT NULL
            """)
        for row in reminded {
            let startedAt: Double = row["started_at"]
            guard let text: String = row["reminded"], let time = OffsetTimestamp(parsing: text),
                  time.date.timeIntervalSince1970 <= startedAt + 300 else { continue }
            try db.execute(sql: "UPDATE answer_sheets SET reminded_at = ? WHERE id = ?",
                           arguments: [time.date.timeIntervalSince1970, row["id"] as Int64])
        }
    }
}

/// The table behind ``QuestionnaireStore``.
enum QuestionnaireSchema {
    /// Second part of `v1-studies` (after ``StudySchema/v1(_:)``: a questionnaire belongs to a study).
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE questionnaires (
                id TEXT NOT NULL,
                version INTEGER NOT NULL,
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                definition TEXT NOT NULL,
                imported_at REAL NOT NULL,
                PRIMARY KEY (id, version)
            );
            """)
    }

    /// `v4-questionnaire-links`: how each questionnaire id is offered (the module that presents
    /// it, its deactivation) and, by `sequence`, the order ids were first imported. Questionnaires
    /// stored before get their default module (``QuestionnaireModules``), in first-import order.
    static func v4(_ db: Database, modules: ServerModules) throws {
        try db.execute(sql: """
            CREATE TABLE questionnaire_links (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                questionnaire_id TEXT NOT NULL UNIQUE,
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                module TEXT NOT NULL,
                deactivated_at REAL
            );
            CREATE INDEX questionnaire_links_study ON questionnaire_links(study_id, sequence);
            """)
        let existing = try Row.fetchAll(db, sql: """
            SELECT id, study_id FROM questionnaires GROUP BY id ORDER BY MIN(imported_at), id
            """)
        for row in existing {
            let id: String = row["id"]
            try db.execute(sql: "INSERT INTO questionnaire_links (questionnaire_id, study_id, module) VALUES (?, ?, ?)",
                           arguments: [id, row["study_id"], QuestionnaireModules.defaultModule(for: id, modules: modules).rawValue])
        }
    }
}

/// The table of the login throttle before issue 27 (`v12-throttle-counts` drops it).
enum LoginFailureSchema {
    /// `v7-login-failures`: failed logins per login name, so that the throttle holds across
    /// server processes and restarts.
    static func v7(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE login_failures (
                login TEXT PRIMARY KEY,
                failures INTEGER NOT NULL,
                first_failure REAL NOT NULL,
                last_failure REAL NOT NULL
            );
            CREATE INDEX login_failures_last ON login_failures(last_failure);
            """)
    }
}

/// The tables behind ``AccountStore``.
enum AccountSchema {
    /// `v1-accounts`.
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                username TEXT NOT NULL UNIQUE COLLATE NOCASE,
                email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                password_hash TEXT NOT NULL,
                first_name TEXT,
                last_name TEXT,
                gender TEXT NOT NULL DEFAULT 'undisclosed',
                language TEXT NOT NULL DEFAULT 'en',
                activated INTEGER NOT NULL DEFAULT 0,
                active INTEGER NOT NULL DEFAULT 1,
                pseudonym TEXT NOT NULL UNIQUE,
                created_at REAL NOT NULL
            );
            CREATE TABLE mail_tokens (
                token_hash TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                purpose TEXT NOT NULL,
                expires_at REAL NOT NULL,
                used_at REAL
            );
            CREATE TABLE sessions (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                access_hash TEXT NOT NULL UNIQUE,
                access_expires_at REAL NOT NULL,
                refresh_hash TEXT NOT NULL UNIQUE,
                refresh_expires_at REAL NOT NULL,
                created_at REAL NOT NULL,
                revoked_at REAL
            );
            CREATE INDEX sessions_user ON sessions(user_id);
            """)
    }

    /// `v11-session-refresh-grace`: the refresh token a session had before its last rotation and
    /// when that rotation was, for ``SessionRotation``'s grace and reuse detection.
    static func v11(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE sessions ADD COLUMN previous_refresh_hash TEXT;
            ALTER TABLE sessions ADD COLUMN rotated_at REAL;
            CREATE INDEX sessions_previous_refresh ON sessions(previous_refresh_hash);
            """)
    }

    /// `v12-mail-tokens-cancelled`: when a mailed code was cancelled unused, by a newer code of its
    /// purpose, by the use of another, or (a reset code) by a new password.
    static func v12(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE mail_tokens ADD COLUMN cancelled_at REAL")
    }
}

/// The table behind the study-password throttle.
enum StudyPasswordFailureSchema {
    /// `v6-study-password-failures`: wrong study passwords per person and study, so that the
    /// throttle holds across server processes and restarts.
    static func v6(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE study_password_failures (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                failures INTEGER NOT NULL,
                first_failure REAL NOT NULL,
                last_failure REAL NOT NULL,
                PRIMARY KEY (user_id, study_id)
            )
            """)
    }
}

/// The tables behind ``StudyStore``.
enum StudySchema {
    /// First part of `v1-studies` (``QuestionnaireSchema/v1(_:)`` is the second).
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE studies (
                id TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                description TEXT,
                consent TEXT,
                starts_at REAL,
                ends_at REAL,
                running INTEGER NOT NULL,
                access TEXT NOT NULL,
                password_hash TEXT,
                participants_may_leave INTEGER NOT NULL,
                modules TEXT NOT NULL,
                schedules TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            );
            CREATE TABLE memberships (
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                status TEXT NOT NULL,
                requested_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (study_id, user_id)
            );
            """)
    }

    /// `v4-memberships-joined-at`: when the user last became a member (a questionnaire schedule's
    /// `startOnDay` counts from it). Members from before get the time their status last changed,
    /// the closest time kept.
    static func v4(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE memberships ADD COLUMN joined_at REAL;
            UPDATE memberships SET joined_at = updated_at WHERE status = 'member';
            """)
    }

    /// `v5-study-rewards`: whether the study gives its participants Track Your Hearing rewards
    /// (`study update ID --rewards on|off`); off for every study until a coordinator turns it on.
    /// Since Track Your Hearing's own step `tyh-rewards-switch` the switch is kept with the
    /// modules' switches (``StudySwitchSchema``) and this column is dropped; a server without
    /// that module leaves it, unread.
    static func v5(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE studies ADD COLUMN rewards INTEGER NOT NULL DEFAULT 0")
    }

    /// `v12-study-password-minimum`: the fewest characters a study's password had to have when it
    /// was set (``StudyRecord/passwordMinimumLength``); passwords from before were checked
    /// against 4.
    static func v12(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE studies ADD COLUMN password_minimum INTEGER;
            UPDATE studies SET password_minimum = 4 WHERE password_hash IS NOT NULL;
            """)
    }
}

/// The table behind the throttles' counts (`Storage/Throttles`).
enum ThrottleSchema {
    /// `v12-throttle-counts`: every throttle's counts by key, each with the time its rule forgets
    /// it. The login counts per name of `v7-login-failures` are dropped: they were counted per
    /// name, not per account, and a count lasts minutes.
    static func v12(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE login_failures;
            CREATE TABLE throttle_counts (
                key TEXT PRIMARY KEY,
                failures INTEGER NOT NULL,
                first_failure REAL NOT NULL,
                last_failure REAL NOT NULL,
                forget_after REAL NOT NULL
            );
            CREATE INDEX throttle_counts_forget ON throttle_counts(forget_after);
            """)
    }
}

/// The comparison's tables in SQLite (steps of ``SQLiteMigrations``; never edit a shipped step:
/// each writes out its SQL, so that it never changes).
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
    /// (The running rows are dropped by `v13`; kept as shipped.)
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
            INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started)
            SELECT s.questionnaire_id, a.label, s.user_id, SUM(a.number), COUNT(*), MIN(s.started_at), MAX(s.started_at)
            FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
            WHERE a.number IS NOT NULL
            GROUP BY s.questionnaire_id, a.label, s.user_id;
            INSERT INTO comparison_running (questionnaire_id, label, user_id, started_at, sheet_id, total, count)
            SELECT s.questionnaire_id, a.label, s.user_id, s.started_at, s.id, SUM(a.number) OVER running, COUNT(*) OVER running
            FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
            WHERE a.number IS NOT NULL
            WINDOW running AS (PARTITION BY s.questionnaire_id, a.label, s.user_id ORDER BY s.started_at, s.id ROWS UNBOUNDED PRECEDING)
            """)
    }

    /// `v10-comparison-snapshots`: day snapshots of every participant's sums (built on first use;
    /// see ``ComparisonSums``), the items' versions that mark them stale, and the running rows by
    /// start, so the sheets between a snapshot's midnight and a bound are one range scan. A
    /// study's members in participant order, so the comparison merges them with the totals
    /// instead of seeking each participant's membership.
    /// (All but the members' index are dropped by `v13`; kept as shipped.)
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

    /// `v13-comparison-in-proportion`: the comparison reads a period from the answers themselves
    /// (``ComparisonSums``): each answer row gets its sheet's participant, questionnaire and start
    /// (a stored sheet never changes), and a covering index by participant, item and start
    /// replaces the index by label, which no query used. The running rows, day snapshots and
    /// versions go; the totals stay as they are.
    static func v13(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE comparison_running;
            DROP TABLE comparison_snapshots;
            DROP TABLE comparison_snapshot_days;
            DROP TABLE comparison_versions;
            DROP INDEX answers_label;
            ALTER TABLE answers ADD COLUMN user_id INTEGER;
            ALTER TABLE answers ADD COLUMN questionnaire_id TEXT;
            ALTER TABLE answers ADD COLUMN started_at REAL;
            UPDATE answers SET user_id = s.user_id, questionnaire_id = s.questionnaire_id, started_at = s.started_at
            FROM answer_sheets s WHERE s.id = answers.sheet_id;
            CREATE INDEX answers_comparison ON answers(user_id, questionnaire_id, label, started_at, number) WHERE number IS NOT NULL;
            """)
    }
}

/// The tables behind ``ConsentStore``.
enum ConsentSchema {
    /// `v14-consent-versions`: every consent text a study has had, numbered from 1, the current
    /// one's number on the study, and which version each person agreed to when. A study's consent
    /// from before becomes its version 1; nobody is recorded as having agreed to it (joining did
    /// not record it), so its members are asked at their next sync.
    static func v14(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE consent_versions (
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                version INTEGER NOT NULL,
                text TEXT NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (study_id, version)
            );
            CREATE TABLE consent_agreements (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                version INTEGER NOT NULL,
                agreed_at REAL NOT NULL,
                PRIMARY KEY (user_id, study_id, version)
            );
            ALTER TABLE studies ADD COLUMN consent_version INTEGER;
            INSERT INTO consent_versions (study_id, version, text, created_at)
            SELECT id, 1, consent, updated_at FROM studies WHERE consent IS NOT NULL;
            UPDATE studies SET consent_version = 1 WHERE consent IS NOT NULL;
            """)
    }
}
