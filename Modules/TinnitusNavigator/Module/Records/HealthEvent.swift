import Foundation
import GRDB
import UNITICore

/// Something that happened, kept in the health record (thesis FR9, data model 5.1.3): an
/// appointment, a period of mental illness, a tinnitus attack or anything else worth telling
/// the doctor. A synced record of `tn` (kind `event`): an edit keeps the id and replaces the
/// entry on the person's other devices; a deletion sends a tombstone.
public struct HealthEvent: Codable, Sendable, Hashable, HealthRecordEntry {
    public static let databaseTableName = "tn_events"
    public static let recordKind = "event"

    public enum Kind: String, Codable, Sendable, CaseIterable {
        case appointment
        case mentalIllness = "mental-illness"
        case attack
        case other

        /// The kind a person typed (its key, or its name in either language).
        public init(parsing text: String) throws {
            let word = text.trimmingCharacters(in: .whitespaces).lowercased()
            if let kind = Kind(rawValue: word) ?? Kind.allCases.first(where: { HealthRecordWords.matches(word, key: "tn.event.type.\($0.rawValue)") }) {
                self = kind
                return
            }
            throw UNITIError(L("tn.event.error.type", ["text": text, "types": Kind.allCases.map(\.rawValue).joined(separator: ", ")]))
        }

        public var title: String { L("tn.event.type.\(rawValue)") }
    }

    public var id: String
    public var title: String
    /// When it happened (or will: an appointment may lie ahead).
    public var at: Date
    public var type: Kind
    public var description: String?
    public var createdAt: Date
    public var updatedAt: Date

    public var recordID: String { id }

    public static let titleLimit = 200
    public static let descriptionLimit = 4000

    /// A new event; the title is trimmed and must not be empty, the description is optional.
    public init(id: String = HealthRecordID.make(), title: String, at: Date, type: Kind, description: String?, now: Date) throws {
        self.id = id
        self.title = try HealthRecordText.required(title, field: L("tn.event.field.title"), limit: Self.titleLimit)
        self.at = at
        self.type = type
        self.description = try HealthRecordText.optional(description, field: L("tn.event.field.description"), limit: Self.descriptionLimit)
        self.createdAt = now
        self.updatedAt = now
    }

    public func validate() throws {
        _ = try HealthRecordText.required(title, field: L("tn.event.field.title"), limit: Self.titleLimit)
        _ = try HealthRecordText.optional(description, field: L("tn.event.field.description"), limit: Self.descriptionLimit)
    }
}
