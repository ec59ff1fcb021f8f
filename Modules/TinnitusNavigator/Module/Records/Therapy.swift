import Foundation
import GRDB
import UNITICore

/// A therapy the person tried or is trying (thesis FR10, data model 5.1.3): its name, type,
/// start, optional end (not before the start) and a note on how it went. A synced record of
/// `tn` (kind `therapy`).
public struct Therapy: Codable, Sendable, Hashable, HealthRecordEntry {
    public static let databaseTableName = "tn_therapies"
    public static let recordKind = "therapy"

    /// The thesis's fourteen therapy types, by short key.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case auditoryStimulation = "auditory-stimulation"
        case biofeedback
        case dental
        case hearingAid = "hearing-aid"
        case medical
        case neurofeedback
        case physiotherapy
        case psychotherapy
        case sport
        case masker
        case trt
        case tcm
        case tms
        case other

        /// The type a person typed (its key, or its name in either language).
        public init(parsing text: String) throws {
            let word = text.trimmingCharacters(in: .whitespaces).lowercased()
            if let kind = Kind(rawValue: word) ?? Kind.allCases.first(where: { HealthRecordWords.matches(word, key: "tn.therapy.type.\($0.rawValue)") }) {
                self = kind
                return
            }
            throw UNITIError(L("tn.therapy.error.type", ["text": text]))
        }

        public var title: String { L("tn.therapy.type.\(rawValue)") }
    }

    public var id: String
    public var name: String
    public var type: Kind
    /// First day, `YYYY-MM-DD`.
    public var start: String
    /// Last day, `YYYY-MM-DD`; nil while it goes on (or has no planned end).
    public var end: String?
    /// How it went, what the doctor said: the outcome the report shows.
    public var note: String?
    public var createdAt: Date
    public var updatedAt: Date

    public var recordID: String { id }

    public static let nameLimit = 200
    public static let noteLimit = 4000

    public init(id: String = HealthRecordID.make(), name: String, type: Kind, start: LocalDate, end: LocalDate?,
                note: String?, now: Date) throws {
        self.id = id
        self.name = try HealthRecordText.required(name, field: L("tn.therapy.field.name"), limit: Self.nameLimit)
        self.type = type
        self.start = start.description
        self.end = end?.description
        self.note = try HealthRecordText.optional(note, field: L("tn.therapy.field.note"), limit: Self.noteLimit)
        self.createdAt = now
        self.updatedAt = now
        try validateDates()
    }

    public var startDate: LocalDate { (try? LocalDate(parsing: start)) ?? LocalDate(year: 1970, month: 1, day: 1) }
    public var endDate: LocalDate? { end.flatMap { try? LocalDate(parsing: $0) } }

    public func validate() throws {
        _ = try HealthRecordText.required(name, field: L("tn.therapy.field.name"), limit: Self.nameLimit)
        _ = try HealthRecordText.optional(note, field: L("tn.therapy.field.note"), limit: Self.noteLimit)
        _ = try LocalDate(parsing: start)
        if let end { _ = try LocalDate(parsing: end) }
        try validateDates()
    }

    /// Refuses an end before the start.
    public func validateDates() throws {
        if let endDate, endDate < startDate {
            throw UNITIError(L("tn.therapy.error.endBeforeStart", ["start": start, "end": end ?? ""]))
        }
    }

    /// Whether the therapy runs on `day`: started, and not yet ended.
    public func isOngoing(on day: LocalDate) -> Bool {
        startDate <= day && (endDate.map { day <= $0 } ?? true)
    }
}
