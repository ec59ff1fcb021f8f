import Foundation
import GRDB

/// The core's record of delivered reminders (`core_reminder_log`), so that each reminder is
/// delivered once, even when the shell and the `reminders run` daemon run at the same time:
/// the one that records it first delivers it.
public struct ReminderLog: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// Records the delivery; false when it was already recorded (then do not deliver again).
    public func claim(_ reminder: PlannedReminder, at date: Date, channel: String) throws -> Bool {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO core_reminder_log(id, moduleID, dueAt, deliveredAt, channel)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [reminder.id, reminder.moduleID, reminder.date, date, channel])
            return db.changesCount == 1
        }
    }

    /// Notes the channel a claimed reminder went out on.
    public func record(_ id: String, channel: String) throws {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE core_reminder_log SET channel = ? WHERE id = ?", arguments: [channel, id])
        }
    }

    /// The ids among `ids` that were delivered already.
    public func delivered(among ids: [String]) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try database.writer.read { db in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            return Set(try String.fetchAll(db, sql: "SELECT id FROM core_reminder_log WHERE id IN (\(marks))",
                                           arguments: StatementArguments(ids)))
        }
    }

    /// The migration of the log table.
    static let migrations = MigrationSet(owner: "core", steps: [
        ModuleMigration("v1-reminder-log") { db in
            try db.create(table: "core_reminder_log") { t in
                t.column("id", .text).primaryKey()
                t.column("moduleID", .text).notNull()
                t.column("dueAt", .datetime).notNull()
                t.column("deliveredAt", .datetime).notNull()
                t.column("channel", .text).notNull()
            }
        },
    ])
}
