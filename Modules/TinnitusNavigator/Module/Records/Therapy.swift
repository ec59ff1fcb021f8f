import Foundation
import GRDB
import UNITICore

/// The therapy (``TinnitusNavigatorShared/Therapy``, shared with the portal) as the module keeps it:
/// a row of `tn_therapies`, checked by the shared rules and worded by the module's strings.
extension Therapy: HealthRecordEntry {
    public static let databaseTableName = "tn_therapies"

    public init(id: String = HealthRecordID.make(), name: String, type: Kind, start: LocalDate, end: LocalDate?,
                note: String?, now: Date) throws {
        self.init(id: id, name: name, type: type, start: start.description, end: end?.description, note: note,
                  createdAt: now, updatedAt: now)
        try validate()
    }

    public var startDate: LocalDate { (try? LocalDate(parsing: start)) ?? LocalDate(year: 1970, month: 1, day: 1) }
    public var endDate: LocalDate? { end.flatMap { try? LocalDate(parsing: $0) } }

    public func validate() throws {
        if let problem = problems.first { throw UNITIError(problem.message) }
    }

    /// Refuses an end before the start.
    public func validateDates() throws {
        if let problem = problems.first(where: { if case .endBeforeStart = $0 { true } else { false } }) {
            throw UNITIError(problem.message)
        }
    }

    /// Whether the therapy runs on `day`: started, and not yet ended.
    public func isOngoing(on day: LocalDate) -> Bool {
        isOngoing(on: day.description)
    }
}

extension Therapy.Kind {
    /// The type a person typed (its key, or its name in either language).
    public init(parsing text: String) throws {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let kind = Self(rawValue: word) ?? Self.allCases.first(where: { HealthRecordWords.matches(word, key: "tn.therapy.type.\($0.rawValue)") }) {
            self = kind
            return
        }
        throw UNITIError(L("tn.therapy.error.type", ["text": text]))
    }

    public var title: String { L("tn.therapy.type.\(rawValue)") }
}
