import Foundation
import GRDB
import UNITICore

/// The module's own tables (prefix `tn_`): the health record's entries, one table per kind
/// (thesis data model 5.1.3). Every entry is a synced record keyed by its client id.
enum TNMigrations {
    static let all: [ModuleMigration] = [
        ModuleMigration("v1-health-record") { db in
            try db.create(table: "tn_events") { t in
                t.column("id", .text).primaryKey()
                t.column("title", .text).notNull()
                t.column("at", .datetime).notNull()
                t.column("type", .text).notNull()
                t.column("description", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(index: "tn_events_by_time", on: "tn_events", columns: ["at"])
            try db.create(table: "tn_therapies") { t in
                t.column("id", .text).primaryKey()
                t.column("name", .text).notNull()
                t.column("type", .text).notNull()
                t.column("start", .text).notNull()   // YYYY-MM-DD
                t.column("end", .text)
                t.column("note", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "tn_audiograms") { t in
                t.column("id", .text).primaryKey()
                t.column("date", .text).notNull()    // YYYY-MM-DD
                t.column("thresholds", .jsonText).notNull()
                t.column("discomfort", .jsonText).notNull()
                t.column("pitchLeft", .integer)
                t.column("pitchRight", .integer)
                t.column("loudnessLeft", .integer)
                t.column("loudnessRight", .integer)
                t.column("note", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(index: "tn_audiograms_by_date", on: "tn_audiograms", columns: ["date"])
            try db.create(table: "tn_completed") { t in
                t.column("id", .text).primaryKey()
                t.column("questionnaireID", .text).notNull()
                t.column("version", .integer).notNull()
                t.column("completedAt", .datetime).notNull()
                t.column("sheet", .jsonText).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(index: "tn_completed_by_questionnaire", on: "tn_completed", columns: ["questionnaireID", "completedAt"])
        },
    ]
}
