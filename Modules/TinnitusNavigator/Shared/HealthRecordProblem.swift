import Foundation

/// A field of a health-record entry, as the forms name it: the shell names it in its error
/// line, the portal shows the problem beside its input.
public enum HealthRecordField: String, Sendable, Hashable, CaseIterable {
    case title, at, type, description
    case name, start, end, note
    case date, thresholds, discomfort, pitchLeft, pitchRight, loudnessLeft, loudnessRight
}

/// What is wrong with an entry, as a value: the rules live here once, for what a person types in
/// the shell, what arrives from another device and what the portal receives; each side words the
/// problem in its own string table (the module keeps its `tn.*` messages, the portal its
/// `portal.record.*` ones).
public enum HealthRecordProblem: Sendable, Hashable {
    /// A required text is empty (after trimming).
    case required(HealthRecordField)
    /// A text is longer than `limit` characters.
    case tooLong(HealthRecordField, limit: Int)
    /// A day that is not `YYYY-MM-DD` on the calendar.
    case notADay(HealthRecordField, text: String)
    /// A therapy ends before it starts.
    case endBeforeStart(start: String, end: String)
    /// A frequency outside 125–16000 Hz.
    case frequency(HealthRecordField, hz: Int)
    /// A frequency given twice.
    case duplicateFrequency(HealthRecordField, hz: Int)
    /// A standard frequency measured for neither ear.
    case missingFrequency(hz: Int)
    /// A hearing level outside −10…120 dB HL or not in steps of 5.
    case level(HealthRecordField, value: Int, hz: Int, ear: Ear)
    /// A tinnitus pitch outside 20–20000 Hz.
    case pitch(HealthRecordField, value: Int)
    /// A tinnitus loudness outside −10…120 dB.
    case loudness(HealthRecordField, value: Int)

    /// The field the problem belongs to.
    public var field: HealthRecordField {
        switch self {
        case .required(let field), .tooLong(let field, _), .notADay(let field, _), .frequency(let field, _),
             .duplicateFrequency(let field, _), .level(let field, _, _, _), .pitch(let field, _), .loudness(let field, _):
            field
        case .endBeforeStart: .end
        case .missingFrequency: .thresholds
        }
    }
}

/// Free text in a record: trimmed, required or optional, and of bounded length.
public enum HealthRecordText {
    /// The text trimmed; nil when nothing is left.
    public static func trimmed(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// The problem of a required text, if any.
    public static func problem(required text: String, _ field: HealthRecordField, limit: Int) -> HealthRecordProblem? {
        guard let trimmed = trimmed(text) else { return .required(field) }
        return trimmed.count <= limit ? nil : .tooLong(field, limit: limit)
    }

    /// The problem of an optional text, if any.
    public static func problem(optional text: String?, _ field: HealthRecordField, limit: Int) -> HealthRecordProblem? {
        guard let trimmed = trimmed(text) else { return nil }
        return trimmed.count <= limit ? nil : .tooLong(field, limit: limit)
    }
}

/// A calendar day as records keep it, `YYYY-MM-DD` (Foundation only; the shell's `LocalDate`
/// reads the same form).
public enum RecordDay {
    /// Whether `text` is a real day written `YYYY-MM-DD`.
    public static func isValid(_ text: String) -> Bool {
        components(text) != nil
    }

    /// Year, month and day of a valid day, nil otherwise (31 February included). Reads what
    /// the shell's `LocalDate` reads, three numbers joined by `-`, with a year of four digits: a
    /// date typed key by key into a browser's date field can come out as year 61120.
    public static func components(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], (1000...9999).contains(year), let month = parts[1], let day = parts[2],
              (1...12).contains(month), day >= 1 else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1] ? (year, month, day) : nil
    }

    /// Whether the day `first` lies before `second` (both valid).
    public static func isBefore(_ first: String, _ second: String) -> Bool {
        guard let a = components(first), let b = components(second) else { return false }
        return (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }
}

/// Ids of health-record entries: lowercase UUIDs, shown by their first eight characters; a
/// command accepts any unique prefix of at least four.
public enum HealthRecordID {
    public static func make() -> String { UUID().uuidString.lowercased() }

    public static func short(_ id: String) -> String { String(id.prefix(8)) }
}
