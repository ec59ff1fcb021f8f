import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// What of Shades Of Noise follows the person to other devices, as module records of `son`
/// (``RecordOutbox``): listening sessions, favourites, the tinnitus frequency and the tinnitus
/// profile form. Each kind has its own client-id prefix:
///
/// | record | client id | payload |
/// |---|---|---|
/// | a listening session | `session:<uuid>` | the session |
/// | a favourite | `favorite:<sound>` | sound and when it was added; removal is a tombstone |
/// | the tinnitus frequency | `frequency` | Hz, or none |
/// | the profile form | `form:<questionnaire>` | see ``QuestionnaireFormStore`` |
///
/// Pulled records are merged by client id: the newer version wins (``RecordTime``, to the
/// millisecond), and a tombstone deletes what is not newer than it.
enum SonRecords {
    static let moduleID = "son"

    struct Favorite: Codable { var sound: String; var addedAt: Date }
    struct Frequency: Codable { var hz: Double? }

    static let frequencyKey = "son.frequency"
    static let frequencyUpdatedKey = "son.frequency.updatedAt"

    // MARK: Queueing (in the caller's transaction)

    static func queue(_ session: ListeningSession, in db: Database) throws {
        try RecordOutbox.save(db, moduleID: moduleID, clientID: "session:\(session.id)", payload: session, updatedAt: session.lastChange)
    }

    static func queueFavorite(_ sound: String, addedAt: Date, in db: Database) throws {
        try RecordOutbox.save(db, moduleID: moduleID, clientID: "favorite:\(sound)",
                              payload: Favorite(sound: sound, addedAt: addedAt), updatedAt: addedAt)
    }

    static func queueFavoriteRemoval(_ sound: String, at date: Date, in db: Database) throws {
        try RecordOutbox.delete(db, moduleID: moduleID, clientID: "favorite:\(sound)", at: date)
    }

    /// Stores the tinnitus frequency and queues it, in one transaction.
    static func storeFrequency(_ hz: Double?, at date: Date, in db: Database) throws {
        try SettingsStore.write(db, frequencyKey, hz.map { String($0) })
        try SettingsStore.write(db, frequencyUpdatedKey, String(date.timeIntervalSince1970))
        try RecordOutbox.save(db, moduleID: moduleID, clientID: "frequency", payload: Frequency(hz: hz), updatedAt: date)
    }

    // MARK: Merging pulled records

    static func apply(_ records: [ModuleRecord], in db: Database) throws {
        for record in records {
            guard let updated = OffsetTimestamp(parsing: record.updatedAt)?.date else { continue }
            let id = record.clientId
            if id.hasPrefix("session:") {
                try applySession(record, id: String(id.dropFirst("session:".count)), updated: updated, in: db)
            } else if id.hasPrefix("favorite:") {
                try applyFavorite(record, sound: String(id.dropFirst("favorite:".count)), updated: updated, in: db)
            } else if id == "frequency" {
                try applyFrequency(record, updated: updated, in: db)
            } else if id.hasPrefix("form:") {
                try QuestionnaireFormStore.applyPulled(record, owner: moduleID, in: db)
            }
            // Unknown kinds come from a newer version of the module; they are left alone.
        }
    }

    /// Whether a local change at `local` is newer than a pulled one at `pulled`.
    static func localIsNewer(_ local: Date?, than pulled: Date) -> Bool {
        RecordTime.isNewer(local, than: pulled)
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ record: ModuleRecord) -> T? {
        guard let payload = record.payload, let data = try? APIClient.encoder.encode(payload) else { return nil }
        return try? APIClient.decoder.decode(type, from: data)
    }

    private static func applySession(_ record: ModuleRecord, id: String, updated: Date, in db: Database) throws {
        let local = try ListeningSession.fetchOne(db, key: id)
        if localIsNewer(local?.lastChange, than: updated) { return }
        if record.deleted {
            _ = try ListeningSession.deleteOne(db, key: id)
            return
        }
        guard var session = decode(ListeningSession.self, record), session.id == id else { return }
        session.updatedAt = updated
        try session.save(db)
    }

    private static func applyFavorite(_ record: ModuleRecord, sound: String, updated: Date, in db: Database) throws {
        let local = try Date.fetchOne(db, sql: "SELECT addedAt FROM son_favorites WHERE sound = ?", arguments: [sound])
        if localIsNewer(local, than: updated) { return }
        if record.deleted {
            try db.execute(sql: "DELETE FROM son_favorites WHERE sound = ?", arguments: [sound])
            return
        }
        guard let favorite = decode(Favorite.self, record) else { return }
        try db.execute(sql: "INSERT OR REPLACE INTO son_favorites(sound, addedAt) VALUES (?, ?)",
                       arguments: [sound, favorite.addedAt])
    }

    private static func applyFrequency(_ record: ModuleRecord, updated: Date, in db: Database) throws {
        let local = try String.fetchOne(db, sql: "SELECT value FROM core_settings WHERE key = ?", arguments: [frequencyUpdatedKey])
            .flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
        if localIsNewer(local, than: updated) { return }
        let hz = record.deleted ? nil : decode(Frequency.self, record)?.hz
        try SettingsStore.write(db, frequencyKey, hz.map { String($0) })
        try SettingsStore.write(db, frequencyUpdatedKey, String(updated.timeIntervalSince1970))
    }
}
