import Foundation
import Logging
import PostgresNIO
import UNITIProtocol

/// The PostgreSQL schema as named, append-only steps, in the one order they run (the twin of
/// ``ServerMigrations`` for SQLite; the identifiers are PostgreSQL's own). Never rename, reorder
/// or edit a step that shipped: add a new one.
///
/// Steps run in one transaction under an advisory lock, so two server processes started at the
/// same moment do not both create the tables. A database that has a step this server does not
/// know was written by a newer server and is refused, untouched.
enum PostgreSQLMigrations {
    static let steps: [(identifier: String, sql: String)] = [
        ("pg1-schema", schemaV1),
        ("pg2-portal", portalV2),
        ("pg3-login-failures", loginFailuresV3),
        ("pg4-comparison-sums", comparisonSumsV4),
        ("pg5-comparison-running", comparisonRunningV5),
        ("pg6-comparison-snapshots", comparisonSnapshotsV6),
        ("pg7-comparison-reads", comparisonReadsV7),
        ("pg8-session-refresh-grace", sessionRefreshGraceV8),
        ("pg9-throttles-and-codes", throttlesAndCodesV9),
        ("pg10-comparison-in-proportion", comparisonInProportionV10),
        ("pg11-consent-versions", consentVersionsV11),
        ("pg12-prompt-events", PromptSchema.pg12),
        ("pg13-staff-console", StaffSchema.pg13),
        ("pg14-erasure-marks", ErasureSchema.pg14),
        ("pg15-audit-participants", TeamSchema.pg15Participants),
        ("pg16-study-invitations", TeamSchema.pg16Invitations),
        ("pg17-study-module-switches", StudySwitchSchema.pg17),
        ("pg18-alerts", AlertSchema.pg18),
        ("pg19-tallies", TallySchema.pg19),
        ("pg20-trials", TrialSchema.pg20),
        ("pg21-trial-blinding", TrialSchema.pg21),
        ("pg22-sites", SiteSchema.pg22),
        ("pg23-screening", ScreeningSchema.pg23),
        ("pg24-languages", LanguageSchema.pg24),
    ]

    /// The lock key that serialises migrations across processes.
    private static let lockKey: Int64 = 0x756E_6974_6900  // "uniti\0"

    struct NewerDatabase: Error, CustomStringConvertible {
        let unknown: [String]
        var description: String {
            "the database was written by a newer uniti-server (it has the schema steps \(unknown.joined(separator: ", ")), which this version does not know); use that version or newer"
        }
    }

    /// Runs the server's steps, then each module part's (``ServerModules/migrations``); a step
    /// run now is recorded as applied at `now`.
    static func migrate(_ client: PostgresClient, logger: Logger, now: Date, modules: ServerModules) async throws {
        let all = steps + modules.migrations.map { ($0.identifier, $0.step.postgres) }
        do {
            try await run(all, client, logger: logger, now: now, installed: Set(modules.parts.map(\.id)))
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }

    private static func run(_ steps: [(identifier: String, sql: String)], _ client: PostgresClient, logger: Logger,
                            now: Date, installed: Set<ModuleID>) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    identifier text PRIMARY KEY,
                    applied_at double precision NOT NULL
                )
                """, logger: logger)
            var applied: Set<String> = []
            for try await identifier in try await connection.query("SELECT identifier FROM schema_migrations", logger: logger)
                .decode(String.self) {
                applied.insert(identifier)
            }
            let known = Set(steps.map(\.identifier))
            // A step of a module this server was built without belongs to that module and is left
            // alone with its tables; any other unknown step was written by a newer server.
            let unknown = applied.subtracting(known).filter { identifier in
                let prefix = identifier.split(separator: "-", maxSplits: 1).first.map(String.init) ?? identifier
                guard let module = ModuleCatalog.module(named: prefix) else { return true }
                return installed.contains(module.id)
            }.sorted()
            guard unknown.isEmpty else { throw NewerDatabase(unknown: unknown) }
            for step in steps where !applied.contains(step.identifier) {
                for statement in statements(step.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO schema_migrations (identifier, applied_at) VALUES (\(step.identifier), \(now.timeIntervalSince1970))
                    """, logger: logger)
            }
        }
    }

    /// A step's statements: the extended query protocol runs one statement at a time, so a step
    /// is split where a line ends with `;` outside a `$$`-quoted function body (no step has a `;`
    /// at a line's end inside any other statement).
    static func statements(_ sql: String) -> [String] {
        var statements: [String] = [], current = ""
        for (index, part) in sql.components(separatedBy: "$$").enumerated() {
            if index > 0 { current += "$$" }
            guard index % 2 == 0 else {
                current += part
                continue
            }
            let pieces = part.components(separatedBy: ";\n")
            for (number, piece) in pieces.enumerated() {
                current += piece
                if number < pieces.count - 1 {
                    statements.append(current)
                    current = ""
                }
            }
        }
        statements.append(current)
        return statements.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// `pg1-schema`: the tables of SQLite's steps up to `v5-sheet-reward-times`, in their final
    /// shape. Booleans are `boolean`, ids `bigint` identities, JSON documents `text` exactly as
    /// SQLite keeps them (sorted keys), times UTC seconds.
    static let schemaV1 = """
        CREATE TABLE users (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            username text NOT NULL,
            email text NOT NULL,
            password_hash text NOT NULL,
            first_name text,
            last_name text,
            gender text NOT NULL DEFAULT 'undisclosed',
            language text NOT NULL DEFAULT 'en',
            activated boolean NOT NULL DEFAULT false,
            active boolean NOT NULL DEFAULT true,
            pseudonym text NOT NULL UNIQUE,
            created_at double precision NOT NULL
        );
        CREATE UNIQUE INDEX users_username ON users (lower(username));
        CREATE UNIQUE INDEX users_email ON users (lower(email));
        CREATE TABLE mail_tokens (
            token_hash text PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            purpose text NOT NULL,
            expires_at double precision NOT NULL,
            used_at double precision
        );
        CREATE TABLE sessions (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            access_hash text NOT NULL UNIQUE,
            access_expires_at double precision NOT NULL,
            refresh_hash text NOT NULL UNIQUE,
            refresh_expires_at double precision NOT NULL,
            created_at double precision NOT NULL,
            revoked_at double precision
        );
        CREATE INDEX sessions_user ON sessions (user_id);
        CREATE TABLE studies (
            id text PRIMARY KEY,
            title text NOT NULL,
            description text,
            consent text,
            starts_at double precision,
            ends_at double precision,
            running boolean NOT NULL,
            access text NOT NULL,
            password_hash text,
            participants_may_leave boolean NOT NULL,
            modules text NOT NULL,
            schedules text,
            rewards boolean NOT NULL DEFAULT false,
            created_at double precision NOT NULL,
            updated_at double precision NOT NULL
        );
        CREATE TABLE memberships (
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            status text NOT NULL,
            requested_at double precision NOT NULL,
            updated_at double precision NOT NULL,
            joined_at double precision,
            PRIMARY KEY (study_id, user_id)
        );
        CREATE INDEX memberships_user ON memberships (user_id);
        CREATE TABLE questionnaires (
            id text NOT NULL,
            version integer NOT NULL,
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            definition text NOT NULL,
            imported_at double precision NOT NULL,
            PRIMARY KEY (id, version)
        );
        CREATE TABLE questionnaire_links (
            sequence bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            questionnaire_id text NOT NULL UNIQUE,
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            module text NOT NULL,
            deactivated_at double precision
        );
        CREATE INDEX questionnaire_links_study ON questionnaire_links (study_id, sequence);
        CREATE TABLE answer_sheets (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            client_id text NOT NULL,
            study_id text NOT NULL,
            questionnaire_id text NOT NULL,
            questionnaire_version integer NOT NULL,
            started_at double precision NOT NULL,
            ended_at double precision,
            received_at double precision NOT NULL,
            sheet text NOT NULL,
            finished_at text,
            is_partial boolean NOT NULL DEFAULT false,
            reminded_at double precision,
            UNIQUE (user_id, client_id)
        );
        CREATE INDEX answer_sheets_user ON answer_sheets (user_id, id);
        CREATE INDEX sheets_questionnaire ON answer_sheets (questionnaire_id, started_at);
        CREATE INDEX answer_sheets_study ON answer_sheets (study_id);
        CREATE TABLE answers (
            sheet_id bigint NOT NULL REFERENCES answer_sheets(id) ON DELETE CASCADE,
            position integer NOT NULL,
            label text NOT NULL,
            value text NOT NULL,
            number double precision,
            answered_at text NOT NULL,
            PRIMARY KEY (sheet_id, position)
        );
        CREATE INDEX answers_label ON answers (label);
        CREATE TABLE module_records (
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            module_id text NOT NULL,
            client_id text NOT NULL,
            updated_at double precision NOT NULL,
            deleted boolean NOT NULL,
            payload text,
            sequence bigint NOT NULL,
            PRIMARY KEY (user_id, module_id, client_id)
        );
        CREATE INDEX module_records_cursor ON module_records (user_id, sequence);
        CREATE TABLE module_resources (
            module_id text NOT NULL,
            name text NOT NULL,
            content text NOT NULL,
            updated_at double precision NOT NULL,
            PRIMARY KEY (module_id, name)
        )
        """

    /// `pg2-portal`: what SQLite's `v6-server-secrets` and `v6-study-password-failures` add —
    /// keys every server process shares (the portal's CSRF key), and wrong study passwords per
    /// person and study for the throttle.
    static let portalV2 = """
        CREATE TABLE server_secrets (
            name text PRIMARY KEY,
            value bytea NOT NULL,
            created_at double precision NOT NULL
        );
        CREATE TABLE study_password_failures (
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            failures integer NOT NULL,
            first_failure double precision NOT NULL,
            last_failure double precision NOT NULL,
            PRIMARY KEY (user_id, study_id)
        )
        """

    /// `pg3-login-failures`: what SQLite's `v7-login-failures` adds — failed logins per login
    /// name, so that the login throttle holds across server processes and restarts.
    static let loginFailuresV3 = """
        CREATE TABLE login_failures (
            login text PRIMARY KEY,
            failures integer NOT NULL,
            first_failure double precision NOT NULL,
            last_failure double precision NOT NULL
        );
        CREATE INDEX login_failures_last ON login_failures (last_failure)
        """

    /// `pg4-comparison-sums`: what SQLite's `v8-comparison-sums` adds — the comparison's running
    /// sums per questionnaire item and participant, in total and per UTC day, filled from the
    /// answers already stored. (The fill is written out here, so that this step never changes.)
    static let comparisonSumsV4 = """
        CREATE TABLE comparison_totals (
            questionnaire_id text NOT NULL,
            label text NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            total double precision NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (questionnaire_id, label, user_id)
        );
        CREATE TABLE comparison_days (
            questionnaire_id text NOT NULL,
            label text NOT NULL,
            day bigint NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            total double precision NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (questionnaire_id, label, day, user_id)
        );
        CREATE INDEX comparison_totals_user ON comparison_totals (user_id);
        CREATE INDEX comparison_days_user ON comparison_days (user_id);
        INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count)
        SELECT s.questionnaire_id, a.label, s.user_id, SUM(a.number), COUNT(*)
        FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
        WHERE a.number IS NOT NULL
        GROUP BY s.questionnaire_id, a.label, s.user_id;
        INSERT INTO comparison_days (questionnaire_id, label, day, user_id, total, count)
        SELECT s.questionnaire_id, a.label, trunc(s.started_at / 86400)::bigint - (s.started_at < trunc(s.started_at / 86400) * 86400)::int,
            s.user_id, SUM(a.number), COUNT(*)
        FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
        WHERE a.number IS NOT NULL
        GROUP BY 1, 2, 3, 4
        """

    /// `pg5-comparison-running`: what SQLite's `v9-comparison-running` does — running sums per
    /// sheet instead of per day, so any period is one seek per participant, and each
    /// participant's first and last sheet in the totals. The running rows are keyed person first,
    /// so an upload's rows share a page or two. (The fill is written out here, so that this step
    /// never changes.)
    static let comparisonRunningV5 = """
        DROP TABLE comparison_days;
        DROP TABLE comparison_totals;
        CREATE TABLE comparison_totals (
            questionnaire_id text NOT NULL,
            label text NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            total double precision NOT NULL,
            count bigint NOT NULL,
            first_started double precision NOT NULL,
            last_started double precision NOT NULL,
            PRIMARY KEY (questionnaire_id, label, user_id)
        );
        CREATE TABLE comparison_running (
            questionnaire_id text NOT NULL,
            label text NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            started_at double precision NOT NULL,
            sheet_id bigint NOT NULL,
            total double precision NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (user_id, questionnaire_id, label, started_at, sheet_id)
        );
        CREATE INDEX comparison_totals_user ON comparison_totals (user_id);
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
        """

    /// `pg6-comparison-snapshots`: what SQLite's `v10-comparison-snapshots` does — day snapshots
    /// of every participant's sums, built on first use, the items' versions that mark them
    /// stale, and the running rows by start.
    static let comparisonSnapshotsV6 = """
        CREATE TABLE comparison_versions (
            questionnaire_id text NOT NULL,
            label text NOT NULL,
            version bigint NOT NULL,
            PRIMARY KEY (questionnaire_id, label)
        );
        CREATE TABLE comparison_snapshot_days (
            questionnaire_id text NOT NULL,
            label text NOT NULL,
            day bigint NOT NULL,
            version bigint NOT NULL,
            built_on bigint NOT NULL,
            PRIMARY KEY (questionnaire_id, label, day)
        );
        CREATE TABLE comparison_snapshots (
            questionnaire_id text NOT NULL,
            label text NOT NULL,
            day bigint NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            total double precision NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (questionnaire_id, label, day, user_id)
        );
        CREATE INDEX comparison_snapshots_user ON comparison_snapshots (user_id);
        CREATE INDEX comparison_running_time ON comparison_running (questionnaire_id, label, started_at) INCLUDE (user_id, total, count);
        """

    /// `pg7-comparison-reads`: what made a period's read cheaper on PostgreSQL then:
    /// - the day snapshots' key carries each participant's sums, so a snapshot is read from the
    ///   index alone once autovacuum has marked its pages visible (a snapshot's rows change only
    ///   when a late answer comes in, so the wider key costs little);
    /// - `comparison_totals.member`: whether the participant is a current member of the study
    ///   that owns the questionnaire, kept by the upload and by every membership change under
    ///   the person's sheet lock, so the read needs no join with `memberships`.
    static let comparisonReadsV7 = """
        ALTER TABLE comparison_snapshots DROP CONSTRAINT comparison_snapshots_pkey,
            ADD PRIMARY KEY (questionnaire_id, label, day, user_id) INCLUDE (total, count);
        ALTER TABLE comparison_totals ADD COLUMN member boolean NOT NULL DEFAULT false;
        UPDATE comparison_totals t SET member = true
        WHERE EXISTS (SELECT FROM questionnaires q JOIN memberships m ON m.study_id = q.study_id
                      WHERE q.id = t.questionnaire_id AND m.user_id = t.user_id AND m.status = 'member');
        """

    /// `pg8-session-refresh-grace`: as SQLite's `v11-session-refresh-grace`, the refresh token a
    /// session had before its last rotation and when that was (``SessionRotation``).
    static let sessionRefreshGraceV8 = """
        ALTER TABLE sessions ADD COLUMN previous_refresh_hash text, ADD COLUMN rotated_at double precision;
        CREATE INDEX sessions_previous_refresh ON sessions (previous_refresh_hash);
        """

    /// `pg9-throttles-and-codes`: what SQLite's `v12-throttle-counts`, `v12-mail-tokens-cancelled`
    /// and `v12-study-password-minimum` add (issue 27) — every throttle's counts by key with the
    /// time its rule forgets them (the per-name login counts are dropped), when a mailed code was
    /// cancelled, and the fewest characters a study's password had to have (4 before).
    static let throttlesAndCodesV9 = """
        DROP TABLE login_failures;
        CREATE TABLE throttle_counts (
            key text PRIMARY KEY,
            failures integer NOT NULL,
            first_failure double precision NOT NULL,
            last_failure double precision NOT NULL,
            forget_after double precision NOT NULL
        );
        CREATE INDEX throttle_counts_forget ON throttle_counts (forget_after);
        ALTER TABLE mail_tokens ADD COLUMN cancelled_at double precision;
        ALTER TABLE studies ADD COLUMN password_minimum integer;
        UPDATE studies SET password_minimum = 4 WHERE password_hash IS NOT NULL
        """

    /// `pg10-comparison-in-proportion`: what SQLite's `v13-comparison-in-proportion` does — each
    /// answer row gets its sheet's participant, questionnaire and start (a stored sheet never
    /// changes), and a covering index by participant, item and start, which a period reads
    /// (``ComparisonSums``), replaces the index by label, which no query used. The running rows,
    /// day snapshots, versions and the totals' copied `member` column go: who counts is read from
    /// `memberships`.
    static let comparisonInProportionV10 = """
        DROP TABLE comparison_running;
        DROP TABLE comparison_snapshots;
        DROP TABLE comparison_snapshot_days;
        DROP TABLE comparison_versions;
        ALTER TABLE comparison_totals DROP COLUMN member;
        DROP INDEX answers_label;
        ALTER TABLE answers ADD COLUMN user_id bigint, ADD COLUMN questionnaire_id text, ADD COLUMN started_at double precision;
        UPDATE answers SET user_id = s.user_id, questionnaire_id = s.questionnaire_id, started_at = s.started_at
        FROM answer_sheets s WHERE s.id = answers.sheet_id;
        CREATE INDEX answers_comparison ON answers (user_id, questionnaire_id, label, started_at) INCLUDE (number) WHERE number IS NOT NULL;
        """

    /// `pg11-consent-versions`: what SQLite's `v14-consent-versions` adds — every consent text a
    /// study has had, the current one's number on the study, and who agreed to which version when.
    static let consentVersionsV11 = """
        CREATE TABLE consent_versions (
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            version integer NOT NULL,
            text text NOT NULL,
            created_at double precision NOT NULL,
            PRIMARY KEY (study_id, version)
        );
        CREATE TABLE consent_agreements (
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            version integer NOT NULL,
            agreed_at double precision NOT NULL,
            PRIMARY KEY (user_id, study_id, version)
        );
        ALTER TABLE studies ADD COLUMN consent_version integer;
        INSERT INTO consent_versions (study_id, version, text, created_at)
        SELECT id, 1, consent, updated_at FROM studies WHERE consent IS NOT NULL;
        UPDATE studies SET consent_version = 1 WHERE consent IS NOT NULL
        """
}
