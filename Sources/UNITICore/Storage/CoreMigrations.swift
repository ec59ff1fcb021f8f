import GRDB

/// The core's own tables. Each core service keeps its steps in its own set (owner `core`,
/// tables prefixed `core_`); `all` lists the sets in the order they run. Append new steps and
/// sets at the end; never edit a step that has shipped.
enum CoreMigrations {
    static let all: [MigrationSet] = [foundation, SyncMigrations.set, QuestionnaireMigrations.set, ReminderLog.migrations,
                                         StudyQuestionnaireStore.migrations, ReminderRuleHistory.migrations,
                                         PromptLog.migrations]

    /// Settings and the studies the person takes part in.
    static let foundation = MigrationSet(owner: "core", steps: [
        ModuleMigration("v1-settings") { db in
            try db.create(table: "core_settings") { t in
                t.column("key", .text).primaryKey()
                t.column("value", .text).notNull()
            }
        },
        ModuleMigration("v1-studies") { db in
            // Studies the person has joined, as last heard from the server. Empty offline and
            // before any login, when the bundled default study applies.
            try db.create(table: "core_studies") { t in
                t.column("id", .text).primaryKey()
                t.column("descriptor", .jsonText).notNull()
                t.column("joinedAt", .datetime)
            }
        },
    ])
}
