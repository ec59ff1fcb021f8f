import GRDB
import UNITICore

/// The tables of Track Your Tinnitus, all prefixed `tyt_` (the data model of thesis 4.2: one row
/// per answered momentary questionnaire, plus the feedback the person sends).
///
/// Results are stored as columns rather than JSON so that ten years of check-ins (43,800 rows)
/// load for the charts in one indexed scan; the full answer sheet travels to the server through
/// the sync outbox.
enum TinnitusMigrations {
    static let all: [ModuleMigration] = [
        ModuleMigration("v1-results") { db in
            try db.execute(sql: """
                CREATE TABLE tyt_results (
                  id TEXT PRIMARY KEY,
                  answeredAt REAL NOT NULL,
                  utcOffset INTEGER NOT NULL,
                  questionnaireID TEXT NOT NULL,
                  questionnaireVersion INTEGER NOT NULL,
                  perceived INTEGER NOT NULL,
                  loudness INTEGER NOT NULL,
                  distress INTEGER NOT NULL,
                  mood INTEGER NOT NULL,
                  arousal INTEGER NOT NULL,
                  stress INTEGER NOT NULL,
                  concentration INTEGER NOT NULL,
                  worstSymptom INTEGER NOT NULL,
                  noiseDBFS REAL
                );
                CREATE INDEX tyt_results_by_time ON tyt_results(answeredAt);
                """)
        },
        ModuleMigration("v1-feedback") { db in
            try db.execute(sql: """
                CREATE TABLE tyt_feedback (
                  id TEXT PRIMARY KEY,
                  text TEXT NOT NULL,
                  email TEXT,
                  createdAt REAL NOT NULL
                );
                """)
        },
        ModuleMigration("v2-feedback-records") { db in
            // Feedback became a synced record with dates like every record's; existing rows keep
            // their time (seconds since 1970 until now) as both creation and update time.
            try db.execute(sql: """
                CREATE TABLE tyt_feedback_new (
                  id TEXT PRIMARY KEY,
                  text TEXT NOT NULL,
                  email TEXT,
                  createdAt DATETIME NOT NULL,
                  updatedAt DATETIME NOT NULL
                );
                INSERT INTO tyt_feedback_new(id, text, email, createdAt, updatedAt)
                  SELECT id, text, email, strftime('%Y-%m-%d %H:%M:%f', createdAt, 'unixepoch'),
                         strftime('%Y-%m-%d %H:%M:%f', createdAt, 'unixepoch') FROM tyt_feedback;
                DROP TABLE tyt_feedback;
                ALTER TABLE tyt_feedback_new RENAME TO tyt_feedback;
                """)
        },
        ModuleMigration("v3-noise-permission") { db in
            // Whether the noise level is measured became the core's microphone permission (one
            // permission for every questionnaire that asks for the level). The module's old
            // switch carries over: `on` is allowed, `off` refused; then it goes.
            let key = "tyt.noise.enabled"
            guard let old = try SettingsStore.read(db, key) else { return }
            try SensorPermissions.set(old == "on" ? .allowed : .refused, for: .microphone, in: db)
            try SettingsStore.write(db, key, nil)
        },
    ]
}
