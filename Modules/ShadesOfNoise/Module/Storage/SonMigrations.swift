import Foundation
import GRDB
import UNITICore

/// The module's own tables (prefix `son_`): listening sessions, favourites, the server's sound catalogue.
enum SonMigrations {
    static let all: [ModuleMigration] = [
        ModuleMigration("v1-sessions") { db in
            // One row per visit of the player in which something was played (FA10, FA12).
            try db.create(table: "son_sessions") { t in
                t.column("id", .text).primaryKey()          // client-generated UUID (sync)
                t.column("sound", .text).notNull()
                t.column("startedAt", .datetime).notNull()
                t.column("endedAt", .datetime).notNull()
                t.column("listenedSeconds", .double).notNull()
                t.column("loop", .text)                      // "1" "2" "5" "10" "unlimited", or none
                t.column("rating", .integer).check { $0 == nil || ($0 >= 1 && $0 <= 7) }
                t.column("ending", .text).notNull().check { ["rated", "declined", "timedOut"].contains($0) }
                t.column("output", .text).notNull()           // "device" or "file"
            }
            try db.create(index: "son_sessions_by_start", on: "son_sessions", columns: ["startedAt"])
        },
        ModuleMigration("v1-favorites") { db in
            try db.create(table: "son_favorites") { t in
                t.column("sound", .text).primaryKey()
                t.column("addedAt", .datetime).notNull()
            }
        },
        ModuleMigration("v2-session-updates") { db in
            // When a session last changed, for sync: the newest version wins (nil: its end).
            try db.alter(table: "son_sessions") { t in t.add(column: "updatedAt", .datetime) }
        },
        ModuleMigration("v2-server-catalogue") { db in
            // The newest valid sound catalogue the server offered (see SoundCatalogue.active).
            try db.create(table: "son_catalogue") { t in
                t.column("name", .text).primaryKey()
                t.column("version", .integer).notNull()
                t.column("content", .jsonText).notNull()
                t.column("receivedAt", .datetime).notNull()
            }
        },
        ModuleMigration("v3-synced-records") { db in
            // Every synced record carries its update time: sessions from their end, favourites
            // from when they were added; the tinnitus frequency moves from the settings into a
            // one-row table of its own.
            try db.execute(sql: "UPDATE son_sessions SET updatedAt = endedAt WHERE updatedAt IS NULL")
            try db.alter(table: "son_favorites") { t in t.add(column: "updatedAt", .datetime) }
            try db.execute(sql: "UPDATE son_favorites SET updatedAt = addedAt")
            try db.create(table: "son_frequency") { t in
                t.column("id", .text).primaryKey()
                t.column("hz", .double)
                t.column("updatedAt", .datetime).notNull()
            }
            let hz = try String.fetchOne(db, sql: "SELECT value FROM core_settings WHERE key = 'son.frequency'").flatMap(Double.init)
            let updated = try String.fetchOne(db, sql: "SELECT value FROM core_settings WHERE key = 'son.frequency.updatedAt'")
                .flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
            if hz != nil || updated != nil {
                try db.execute(sql: "INSERT INTO son_frequency(id, hz, updatedAt) VALUES ('', ?, ?)",
                               arguments: [hz, updated ?? Date(timeIntervalSince1970: 0)])
            }
            try db.execute(sql: "DELETE FROM core_settings WHERE key IN ('son.frequency', 'son.frequency.updatedAt')")
        },
    ]
}
