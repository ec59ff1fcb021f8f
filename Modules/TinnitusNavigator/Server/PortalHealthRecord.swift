import Foundation
import TinnitusNavigatorShared
import UNITIProtocol
import UNITIServer

/// One person's TinnitusNavigator record as the portal reads and writes it: the same module
/// records (`tn`, `<kind>:<id>`) the shell syncs through `/api/v1/records`, in the same store, so
/// the newest-wins rule and tombstones are the store's and a change made here reaches the shell at
/// its next sync (and the other way round). Every read and write is scoped to one user id: the
/// store holds no path from one person's records to another's.
struct PortalHealthRecord: Sendable {
    let store: ServerStore
    let clock: any ServerClock
    let userId: Int64

    /// The entries of one kind that are not deleted. A payload this version cannot read (a newer
    /// module's) is left out here and left alone in the store.
    func entries<Entry: HealthRecordPayload>(_ type: Entry.Type) async throws -> [Entry] {
        try await payloads(Entry.self, kind: Entry.recordKind)
    }

    /// The payloads of one kind that are not deleted, read as `Payload` (which may name only the
    /// fields it needs); one that does not read so is left out here and left alone in the store.
    func payloads<Payload: Decodable>(_ type: Payload.Type, kind: String) async throws -> [Payload] {
        try await stored(kind: kind).compactMap { record in
            guard !record.deleted, let payload = record.payload else { return nil }
            return try? RecordPayloadCoding.decode(Payload.self, from: payload)
        }
    }

    /// One entry by its full id, nil when this person has none (or it was deleted).
    func entry<Entry: HealthRecordPayload>(_ type: Entry.Type, id: String) async throws -> Entry? {
        guard Self.isPlausibleID(id) else { return nil }
        let clientID = HealthRecordCoding.clientID(kind: Entry.recordKind, id: id)
        guard let record = try await stored(kind: Entry.recordKind).first(where: { $0.clientId == clientID }),
              !record.deleted, let payload = record.payload else { return nil }
        return try? RecordPayloadCoding.decode(Entry.self, from: payload)
    }

    /// Keeps a new or changed entry, stamped now (to the millisecond, as the shell stamps), or
    /// just after the stored version when this server's clock lags behind the device that wrote
    /// it: an edit made here must win over what it was made from. A new entry is made then too.
    func save<Entry: HealthRecordPayload>(_ entry: Entry, isNew: Bool) async throws {
        let stamp = try await nextStamp(kind: Entry.recordKind, id: entry.id)
        var entry = entry
        if isNew { entry.createdAt = stamp }
        entry.updatedAt = stamp
        let upsert = ModuleRecordUpsert(moduleId: HealthRecordCoding.moduleID,
                                        clientId: HealthRecordCoding.clientID(kind: Entry.recordKind, id: entry.id),
                                        updatedAt: Timestamps.formatMilliseconds(stamp), deleted: nil,
                                        payload: try RecordPayloadCoding.payload(entry))
        _ = try await store.applyRecords(userId: userId, changes: [RecordChange(upsert: upsert, updatedAt: stamp)])
    }

    /// Deletes an entry as the shell does: a tombstone, so the person's devices delete it too.
    func delete<Entry: HealthRecordPayload>(_ type: Entry.Type, id: String) async throws {
        let stamp = try await nextStamp(kind: Entry.recordKind, id: id)
        let upsert = ModuleRecordUpsert(moduleId: HealthRecordCoding.moduleID,
                                        clientId: HealthRecordCoding.clientID(kind: Entry.recordKind, id: id),
                                        updatedAt: Timestamps.formatMilliseconds(stamp), deleted: true, payload: nil)
        _ = try await store.applyRecords(userId: userId, changes: [RecordChange(upsert: upsert, updatedAt: stamp)])
    }

    /// Ids as the shell makes them (lowercase UUIDs); anything else in a URL names nothing.
    static func isPlausibleID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) || $0 == UInt8(ascii: "-")
        }
    }

    private func nextStamp(kind: String, id: String) async throws -> Date {
        let now = Self.milliseconds(clock.now())
        let clientID = HealthRecordCoding.clientID(kind: kind, id: id)
        guard let stored = try await stored(kind: kind).first(where: { $0.clientId == clientID }),
              let storedAt = Timestamps.parse(stored.updatedAt), storedAt >= now else { return now }
        return Self.milliseconds(storedAt).addingTimeInterval(0.001)
    }

    private static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    /// Every stored `tn` record of this kind, tombstones included, paged through the store.
    private func stored(kind: String) async throws -> [ModuleRecord] {
        let prefix = kind + ":"
        var records: [ModuleRecord] = []
        var cursor: Int64 = 0
        while true {
            let page = try await store.records(userId: userId, after: cursor, moduleId: ModuleID(rawValue: HealthRecordCoding.moduleID),
                                               updatedSince: nil, limit: ServerLimits.maximumPageSize)
            records += page.records.filter { $0.clientId.hasPrefix(prefix) }
            cursor = page.cursor
            if !page.more { return records }
        }
    }
}
