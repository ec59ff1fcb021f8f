import Foundation
import GRDB
import UNITICore

/// One stored listening session: what was played, when, for how long, and how it was rated.
public struct ListeningSession: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "son_sessions"

    public var id: String
    public var sound: String
    public var startedAt: Date
    public var endedAt: Date
    /// Seconds actually played (pauses excluded).
    public var listenedSeconds: Double
    public var loop: String?
    public var rating: Int?
    /// "rated", "declined" or "timedOut".
    public var ending: String
    /// "device" or "file".
    public var output: String
    /// When the session last changed (sync: the newest version wins); nil means `endedAt`.
    public var updatedAt: Date?

    public init(id: String = UUID().uuidString, sound: String, startedAt: Date, endedAt: Date,
                listenedSeconds: Double, loop: LoopDuration?, outcome: RatingOutcome, output: String) {
        self.id = id
        self.sound = sound
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.listenedSeconds = listenedSeconds
        self.loop = loop?.storedValue
        self.rating = outcome.rating
        self.ending = outcome.ending
        self.output = output
        self.updatedAt = endedAt
    }

    var lastChange: Date { updatedAt ?? endedAt }
}

/// Reads and writes the module's tables. Every change that should follow the person to other
/// devices is queued as a module record in the same transaction (see ``SonRecords``).
public struct SonStore: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func save(_ session: ListeningSession) throws {
        try database.writer.write { db in
            try session.insert(db)
            try SonRecords.queue(session, in: db)
        }
    }

    /// Sessions, newest first; `limit` nil for all.
    public func sessions(limit: Int? = nil) throws -> [ListeningSession] {
        try database.writer.read { db in
            var request = ListeningSession.order(Column("startedAt").desc, Column("id"))
            if let limit { request = request.limit(limit) }
            return try request.fetchAll(db)
        }
    }

    public func favorites() throws -> [String] {
        try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT sound FROM son_favorites ORDER BY addedAt, sound")
        }
    }

    /// Adds a favourite; false when it was one already.
    @discardableResult
    public func addFavorite(_ sound: String, at date: Date) throws -> Bool {
        try database.writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO son_favorites(sound, addedAt) VALUES (?, ?)", arguments: [sound, date])
            guard db.changesCount > 0 else { return false }
            try SonRecords.queueFavorite(sound, addedAt: date, in: db)
            return true
        }
    }

    /// Removes a favourite; false when it was none.
    @discardableResult
    public func removeFavorite(_ sound: String, at date: Date = Date()) throws -> Bool {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM son_favorites WHERE sound = ?", arguments: [sound])
            guard db.changesCount > 0 else { return false }
            try SonRecords.queueFavoriteRemoval(sound, at: date, in: db)
            return true
        }
    }
}
