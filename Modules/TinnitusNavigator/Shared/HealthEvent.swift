import Foundation

/// Something that happened, kept in the health record (thesis FR9, data model 5.1.3): an
/// appointment, a period of mental illness, a tinnitus attack or anything else worth telling
/// the doctor. A synced record of `tn` (kind `event`): an edit keeps the id and replaces the
/// entry on the person's other devices; a deletion sends a tombstone.
///
/// The payload as it travels; the module adds its storage and localized words, the portal its
/// pages.
public struct HealthEvent: Codable, Sendable, Hashable {
    public static let recordKind = "event"

    public enum Kind: String, Codable, Sendable, CaseIterable {
        case appointment
        case mentalIllness = "mental-illness"
        case attack
        case other
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

    /// An event as given, texts trimmed (an empty description is none); check it with
    /// ``problems``.
    public init(id: String, title: String, at: Date, type: Kind, description: String?, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.title = HealthRecordText.trimmed(title) ?? ""
        self.at = at
        self.type = type
        self.description = HealthRecordText.trimmed(description)
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Everything wrong with the event, in the order the fields are asked for.
    public var problems: [HealthRecordProblem] {
        [HealthRecordText.problem(required: title, .title, limit: Self.titleLimit),
         HealthRecordText.problem(optional: description, .description, limit: Self.descriptionLimit)].compactMap { $0 }
    }
}
