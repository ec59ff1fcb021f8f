import Foundation
import UNITICore

/// The person's tinnitus frequency (thesis outlook; found with Match Your Tinnitus or an
/// audiologist), stored as the module setting `son.frequency` and synced as a record (it
/// follows the person to other devices). The notched, narrow-band and tone sounds are built around it.
public enum TinnitusFrequency {
    static let key = "frequency"
    /// Accepted range in Hz: where tinnitus is usually matched, and where every sound kind can
    /// be built at 44.1 kHz (a one-octave notch needs room above it).
    public static let range: ClosedRange<Double> = 100...14_000

    public static func stored(in context: ModuleContext) throws -> Double? {
        try context.moduleSetting(key).flatMap(Double.init)
    }

    public static func store(_ text: String, in context: ModuleContext) throws -> Double {
        let cleaned = text.lowercased().replacingOccurrences(of: "hz", with: "").trimmingCharacters(in: .whitespaces)
        guard let value = Double(cleaned), value.isFinite, range.contains(value) else {
            throw UNITIError(L("son.frequency.bad", ["value": text, "min": "100", "max": "14000"]))
        }
        let now = context.clock.now
        try context.database.writer.write { db in try SonRecords.storeFrequency(value, at: now, in: db) }
        return value
    }
}
