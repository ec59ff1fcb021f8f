import GRDB

/// The server's SQLite schema as named, append-only steps, in the one order they run.
///
/// Each step's tables belong to one concern and are created by that concern's schema (next to its
/// queries, e.g. ``AccountSchema``); this list only orders them. Never rename, reorder or edit a
/// step that shipped — existing databases have recorded it by its identifier; add a new step.
enum ServerMigrations {
    static var migrator: DatabaseMigrator {
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
        migrator.registerMigration("v4-questionnaire-links", migrate: QuestionnaireSchema.v4)
        migrator.registerMigration("v5-study-rewards", migrate: StudySchema.v5)
        migrator.registerMigration("v5-sheet-reward-times", migrate: SheetSchema.v5)
        migrator.registerMigration("v6-server-secrets", migrate: ServerSecretSchema.v6)
        migrator.registerMigration("v6-study-password-failures", migrate: StudyPasswordFailureSchema.v6)
        migrator.registerMigration("v7-login-failures", migrate: LoginFailureSchema.v7)
        migrator.registerMigration("v8-comparison-sums", migrate: ComparisonSumSchema.v8)
        migrator.registerMigration("v9-comparison-running", migrate: ComparisonSumSchema.v9)
        migrator.registerMigration("v10-comparison-snapshots", migrate: ComparisonSumSchema.v10)
        migrator.registerMigration("v11-throttle-counts", migrate: ThrottleSchema.v11)
        migrator.registerMigration("v11-mail-tokens-cancelled", migrate: AccountSchema.v11)
        migrator.registerMigration("v11-study-password-minimum", migrate: StudySchema.v11)
        return migrator
    }
}
