import Foundation
import GRDB
import UNITICore

/// One stored listening session: what was played, when, for how long, and how it was rated.
/// A synced record of `son` (kind `session`): it follows the person to their other devices.
public struct ListeningSession: Codable, Sendable, Hashable, SyncedTableRecord {
    public static let databaseTableName = "son_sessions"
    public static let recordKind = "session"

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
    /// When the session last changed (sync: the newest version wins).
    public var updatedAt: Date

    public var recordID: String { id }

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
}

/// A favourite sound (FA outlook), a synced record of `son` (kind `favorite`, id the sound);
/// removing it sends a tombstone.
public struct FavoriteSound: Codable, Sendable, Hashable, SyncedTableRecord {
    public static let databaseTableName = "son_favorites"
    public static let recordKind = "favorite"

    public var sound: String
    public var addedAt: Date
    public var updatedAt: Date

    public var recordID: String { sound }
}

/// Reads and writes the module's tables. Every change that should follow the person to other
/// devices goes through the module's synced records, queued in the same transaction.
public struct SonStore: Sendable {
    public let records: SyncedRecords

    public init(records: SyncedRecords) {
        self.records = records
    }

    var database: AppDatabase { records.database }

    public func save(_ session: ListeningSession) throws {
        try records.save(session, at: session.updatedAt)
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
            try FavoriteSound.order(Column("addedAt"), Column("sound")).fetchAll(db).map(\.sound)
        }
    }

    /// Adds a favourite; false when it was one already.
    @discardableResult
    public func addFavorite(_ sound: String, at date: Date) throws -> Bool {
        try database.writer.write { db in
            guard try FavoriteSound.fetchOne(db, key: sound) == nil else { return false }
            try records.save(FavoriteSound(sound: sound, addedAt: date, updatedAt: date), at: date, in: db)
            return true
        }
    }

    /// Removes a favourite; false when it was none.
    @discardableResult
    public func removeFavorite(_ sound: String, at date: Date) throws -> Bool {
        try database.writer.write { db in
            guard try FavoriteSound.fetchOne(db, key: sound) != nil else { return false }
            try records.delete(FavoriteSound.self, id: sound, at: date, in: db)
            return true
        }
    }
}
