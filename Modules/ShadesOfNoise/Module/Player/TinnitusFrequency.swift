import Foundation
import GRDB
import UNITICore

/// The person's tinnitus frequency (thesis outlook; found with Match Your Tinnitus or an
/// audiologist): one row of `son_frequency`, a synced record of `son` (kind `frequency`, a
/// single record), so it follows the person to other devices. The notched, narrow-band and tone
/// sounds are built around it.
public struct TinnitusFrequency: Codable, Sendable, Equatable, SyncedTableRecord {
    public static let databaseTableName = "son_frequency"
    public static let recordKind = "frequency"

    /// Always "": there is one frequency.
    var id: String = ""
    /// Hz, or nil when the person cleared it.
    public var hz: Double?
    public var updatedAt: Date

    public var recordID: String { id }

    /// Accepted range in Hz: where tinnitus is usually matched, and where every sound kind can
    /// be built at 44.1 kHz (a one-octave notch needs room above it).
    public static let range: ClosedRange<Double> = 100...14_000

    public static func stored(in context: ModuleContext) throws -> Double? {
        try context.database.writer.read { db in try TinnitusFrequency.fetchOne(db, key: "")?.hz }
    }

    public static func store(_ text: String, in context: ModuleContext) throws -> Double {
        let cleaned = text.lowercased().replacingOccurrences(of: "hz", with: "").trimmingCharacters(in: .whitespaces)
        guard let value = Double(cleaned), value.isFinite, range.contains(value) else {
            throw UNITIError(L("son.frequency.bad", ["value": text, "min": "100", "max": "14000"]))
        }
        let now = context.clock.now
        try context.records.save(TinnitusFrequency(hz: value, updatedAt: now), at: now)
        return value
    }
}
