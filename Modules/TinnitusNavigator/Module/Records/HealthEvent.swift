import Foundation
import GRDB
import UNITICore

/// The event (``TinnitusNavigatorShared/HealthEvent``, shared with the portal) as the module keeps it:
/// a row of `tn_events`, checked by the shared rules and worded by the module's strings.
extension HealthEvent: HealthRecordEntry {
    public static let databaseTableName = "tn_events"

    /// A new event; the title is trimmed and must not be empty, the description is optional.
    public init(id: String = HealthRecordID.make(), title: String, at: Date, type: Kind, description: String?, now: Date) throws {
        self.init(id: id, title: title, at: at, type: type, description: description, createdAt: now, updatedAt: now)
        try validate()
    }

    public func validate() throws {
        if let problem = problems.first { throw UNITIError(problem.message) }
    }
}

extension HealthEvent.Kind {
    /// The kind a person typed (its key, or its name in either language).
    public init(parsing text: String) throws {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let kind = Self(rawValue: word) ?? Self.allCases.first(where: { HealthRecordWords.matches(word, key: "tn.event.type.\($0.rawValue)") }) {
            self = kind
            return
        }
        throw UNITIError(L("tn.event.error.type", ["text": text, "types": Self.allCases.map(\.rawValue).joined(separator: ", ")]))
    }

    public var title: String { L("tn.event.type.\(rawValue)") }
}
