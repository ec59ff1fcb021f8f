import Foundation

/// A therapy the person tried or is trying (thesis FR10, data model 5.1.3): its name, type,
/// start, optional end (not before the start) and a note on how it went. A synced record of
/// `tn` (kind `therapy`).
public struct Therapy: Codable, Sendable, Hashable {
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

    /// A therapy as given, texts trimmed (an empty end or note is none); check it with
    /// ``problems``.
    public init(id: String, name: String, type: Kind, start: String, end: String?, note: String?, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.name = HealthRecordText.trimmed(name) ?? ""
        self.type = type
        self.start = start.trimmingCharacters(in: .whitespaces)
        self.end = HealthRecordText.trimmed(end)
        self.note = HealthRecordText.trimmed(note)
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Everything wrong with the therapy, in the order the fields are asked for; an end before
    /// the start is named only when both days are real days.
    public var problems: [HealthRecordProblem] {
        var problems = [HealthRecordText.problem(required: name, .name, limit: Self.nameLimit),
                        HealthRecordText.problem(optional: note, .note, limit: Self.noteLimit)].compactMap { $0 }
        let startValid = RecordDay.isValid(start)
        if !startValid { problems.append(.notADay(.start, text: start)) }
        if let end, !RecordDay.isValid(end) {
            problems.append(.notADay(.end, text: end))
        } else if let end, startValid, RecordDay.isBefore(end, start) {
            problems.append(.endBeforeStart(start: start, end: end))
        }
        return problems
    }

    /// Whether the therapy runs on `day` (`YYYY-MM-DD`): started, and not yet ended.
    public func isOngoing(on day: String) -> Bool {
        !RecordDay.isBefore(day, start) && (end.map { !RecordDay.isBefore($0, day) } ?? true)
    }
}
