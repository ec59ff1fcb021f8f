import GRDB

/// The questionnaire engine's tables: drafts being answered, and finished (or partial) sheets
/// that modules choose to keep through `AnswerSheetStore`.
enum QuestionnaireMigrations {
    static let set = MigrationSet(owner: "core", steps: [
        ModuleMigration("v1-questionnaire-drafts") { db in
            // One draft per owner and questionnaire: the answers so far, kept after every
            // answer so Ctrl-C or a crash loses nothing.
            try db.create(table: "core_questionnaire_drafts") { t in
                t.column("owner", .text).notNull()
                t.column("questionnaireID", .text).notNull()
                t.column("questionnaireVersion", .integer).notNull()
                t.column("draft", .jsonText).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["owner", "questionnaireID"])
            }
        },
        ModuleMigration("v1-answer-sheets") { db in
            try db.create(table: "core_answer_sheets") { t in
                t.column("id", .text).primaryKey()  // the sheet's client UUID: storing twice keeps one
                t.column("owner", .text).notNull()
                t.column("questionnaireID", .text).notNull()
                t.column("questionnaireVersion", .integer).notNull()
                t.column("isPartial", .boolean).notNull()
                t.column("endedAt", .text)
                t.column("sheet", .jsonText).notNull()
                t.column("storedAt", .datetime).notNull()
            }
            try db.create(index: "core_answer_sheets_by_questionnaire", on: "core_answer_sheets",
                          columns: ["owner", "questionnaireID", "storedAt"])
        },
        ModuleMigration("v2-questionnaire-forms") { db in
            // Forms answered in any order and changed at any time (QuestionnaireFormStore).
            try db.create(table: "core_questionnaire_forms") { t in
                t.column("owner", .text).notNull()
                t.column("questionnaireID", .text).notNull()
                t.column("questionnaireVersion", .integer).notNull()
                t.column("answers", .jsonText).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["owner", "questionnaireID"])
            }
        },
        ModuleMigration("v3-answer-sheets-erased") { db in
            // When the person left the sheet's study asking the server to delete their answers:
            // the copy here stays theirs, and its upload state says it is gone from the server.
            try db.alter(table: "core_answer_sheets") { t in t.add(column: "erasedFromServerAt", .datetime) }
        },
    ])
}
