import GRDB

/// The server's schema as named, append-only steps (never edit a step that shipped; add one).
enum ServerMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-accounts") { db in
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
        migrator.registerMigration("v1-studies") { db in
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
        migrator.registerMigration("v1-sheets") { db in
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
        migrator.registerMigration("v1-module-records") { db in
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
        ModuleResourceMigration.register(in: &migrator)
        return migrator
    }
}
