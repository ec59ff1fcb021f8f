@_exported import TinnitusNavigatorShared
import Foundation
import GRDB
import UNITICore

// The record types, their rules and the audiogram picture live in `TinnitusNavigatorShared`, which the
// study server's portal shares; they are re-exported so that the module's public face (and every
// `import TinnitusNavigator`) stays what it was before they moved.

extension HealthRecordText {
    /// A required text, trimmed, or the module's one-line error naming `field`.
    static func required(_ text: String, field: String, limit: Int) throws -> String {
        guard let trimmed = trimmed(text) else { throw UNITIError(L("tn.error.required", ["field": field])) }
        return try bounded(trimmed, field: field, limit: limit)
    }

    /// An optional text, trimmed (nil when empty), or the module's one-line error.
    static func optional(_ text: String?, field: String, limit: Int) throws -> String? {
        guard let trimmed = trimmed(text) else { return nil }
        return try bounded(trimmed, field: field, limit: limit)
    }

    private static func bounded(_ text: String, field: String, limit: Int) throws -> String {
        guard text.count <= limit else {
            throw UNITIError(L("tn.error.tooLong", ["field": field, "limit": "\(limit)"]))
        }
        return text
    }
}

extension HealthRecordProblem {
    /// The problem in the module's words (the lines the shell has always printed).
    var message: String {
        switch self {
        case .required(let field):
            L("tn.error.required", ["field": field.title])
        case .tooLong(let field, let limit):
            L("tn.error.tooLong", ["field": field.title, "limit": "\(limit)"])
        case .notADay(_, let text):
            L("reminders.error.date", ["text": text])
        case .endBeforeStart(let start, let end):
            L("tn.therapy.error.endBeforeStart", ["start": start, "end": end])
        case .frequency(_, let hz):
            L("tn.audiogram.error.frequency", ["hz": "\(hz)"])
        case .duplicateFrequency(_, let hz):
            L("tn.audiogram.error.duplicateFrequency", ["hz": "\(hz)"])
        case .missingFrequency(let hz):
            L("tn.audiogram.error.missingFrequency", ["hz": "\(hz)"])
        case .level(_, let value, let hz, let ear):
            L("tn.audiogram.error.level", ["value": "\(value)", "hz": "\(hz)", "ear": ear.title])
        case .pitch(_, let value):
            L("tn.audiogram.error.pitch", ["value": "\(value)"])
        case .loudness(_, let value):
            L("tn.audiogram.error.loudness", ["value": "\(value)"])
        }
    }
}

extension HealthRecordField {
    /// The field's name in an error line (only free-text fields are named this way).
    var title: String {
        switch self {
        case .title: L("tn.event.field.title")
        case .description: L("tn.event.field.description")
        case .name: L("tn.therapy.field.name")
        case .note: L("tn.therapy.field.note")
        default: rawValue
        }
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
