import Foundation
import GRDB
import UNITICore

/// Ids of health-record entries: lowercase UUIDs, shown by their first eight characters; a
/// command accepts any unique prefix of at least four.
public enum HealthRecordID {
    public static func make() -> String { UUID().uuidString.lowercased() }

    public static func short(_ id: String) -> String { String(id.prefix(8)) }
}

/// Free text in a record: trimmed, required or optional, and of bounded length.
enum HealthRecordText {
    static func required(_ text: String, field: String, limit: Int) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw UNITIError(L("tn.error.required", ["field": field])) }
        return try bounded(trimmed, field: field, limit: limit)
    }

    static func optional(_ text: String?, field: String, limit: Int) throws -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return try bounded(trimmed, field: field, limit: limit)
    }

    private static func bounded(_ text: String, field: String, limit: Int) throws -> String {
        guard text.count <= limit else {
            throw UNITIError(L("tn.error.tooLong", ["field": field, "limit": "\(limit)"]))
        }
        return text
    }
}

/// Matching what a person typed against a word's names in every language (a type named in
/// German works in an English shell too).
enum HealthRecordWords {
    static func matches(_ word: String, key: String) -> Bool {
        Language.allCases.contains { language in
            Localizer(language: language)(key).lowercased() == word
        }
    }
}

/// An entry of the health record that checks itself: the same rules for what a person types
/// here and for what arrives from another device (a pulled version that breaks them is parked
/// as unreadable, never stored).
public protocol HealthRecordEntry: SyncedTableRecord {
    var id: String { get }
    func validate() throws
}

extension HealthRecordEntry {
    /// Pulled versions are checked before the newest-wins merge: the id must be the one it
    /// travels under, and the entry valid.
    public static func merge(_ change: PulledRecordChange<Self>, in db: Database) throws {
        try mergeChecked(change, in: db)
    }

    /// The checked newest-wins merge, for a kind whose own `merge` does more after it.
    static func mergeChecked(_ change: PulledRecordChange<Self>, in db: Database) throws {
        if let record = change.record {
            guard record.id == change.id else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the payload's id is not the record's id"))
            }
            do {
                try record.validate()
            } catch let error as UNITIError {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.message))
            }
        }
        try RecordMerge.newestWins(change, in: db)
    }
}
