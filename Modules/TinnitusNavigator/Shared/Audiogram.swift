import Foundation

/// One ear's and the other's hearing at one frequency: the threshold in dB HL, nil when not
/// measured.
public struct EarValues: Codable, Sendable, Hashable {
    /// Frequency in Hz.
    public var hz: Int
    public var left: Int?
    public var right: Int?

    public init(hz: Int, left: Int?, right: Int?) {
        self.hz = hz
        self.left = left
        self.right = right
    }
}

/// Left or right.
public enum Ear: String, Codable, Sendable, CaseIterable {
    case left, right
}

/// A pure-tone audiogram (thesis FR11, chapter 2): the hearing threshold of each ear at the
/// standard frequencies and any custom ones, the tinnitus pitch and loudness per ear, and the
/// threshold of discomfort where it was measured. A synced record of `tn` (kind `audiogram`).
public struct Audiogram: Codable, Sendable, Hashable {
    public static let recordKind = "audiogram"

    /// The seven frequencies every audiogram asks for, in order (Hz).
    public static let standardFrequencies = [125, 250, 500, 1000, 2000, 4000, 8000]
    /// Frequencies a custom value may have (Hz).
    public static let frequencyRange = 125...16_000
    /// Hearing levels an audiometer shows (dB HL), in steps of 5.
    public static let levelRange = -10...120
    public static let levelStep = 5
    /// Tinnitus pitch (Hz) and loudness (dB) a person may note.
    public static let pitchRange = 20...20_000
    public static let loudnessRange = -10...120
    public static let noteLimit = 4000

    public var id: String
    /// The day of the measurement, `YYYY-MM-DD`.
    public var date: String
    /// Hearing thresholds by frequency, ascending.
    public var thresholds: [EarValues]
    /// Thresholds of discomfort (uncomfortable loudness) by frequency, where measured.
    public var discomfort: [EarValues]
    public var pitchLeft: Int?
    public var pitchRight: Int?
    public var loudnessLeft: Int?
    public var loudnessRight: Int?
    public var note: String?
    public var createdAt: Date
    public var updatedAt: Date

    public var recordID: String { id }

    /// An audiogram as given, the tables sorted by frequency and the note trimmed; check it with
    /// ``problems``.
    public init(id: String, date: String, thresholds: [EarValues], discomfort: [EarValues] = [],
                pitchLeft: Int? = nil, pitchRight: Int? = nil, loudnessLeft: Int? = nil, loudnessRight: Int? = nil,
                note: String? = nil, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.date = date
        self.thresholds = thresholds.sorted { $0.hz < $1.hz }
        self.discomfort = discomfort.sorted { $0.hz < $1.hz }
        self.pitchLeft = pitchLeft
        self.pitchRight = pitchRight
        self.loudnessLeft = loudnessLeft
        self.loudnessRight = loudnessRight
        self.note = HealthRecordText.trimmed(note)
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Everything wrong with the audiogram: every value in its range, each frequency once,
    /// every standard frequency present for at least one ear; in the order the shell has
    /// always checked them (its error line names the first).
    public var problems: [HealthRecordProblem] {
        var problems: [HealthRecordProblem] = []
        if let problem = HealthRecordText.problem(optional: note, .note, limit: Self.noteLimit) { problems.append(problem) }
        if !RecordDay.isValid(date) { problems.append(.notADay(.date, text: date)) }
        problems += Self.tableProblems(thresholds, .thresholds)
        for hz in Self.standardFrequencies where !thresholds.contains(where: { $0.hz == hz && ($0.left != nil || $0.right != nil) }) {
            problems.append(.missingFrequency(hz: hz))
        }
        problems += Self.tableProblems(discomfort, .discomfort)
        for (field, pitch) in [(HealthRecordField.pitchLeft, pitchLeft), (.pitchRight, pitchRight)] {
            if let pitch, !Self.pitchRange.contains(pitch) { problems.append(.pitch(field, value: pitch)) }
        }
        for (field, loudness) in [(HealthRecordField.loudnessLeft, loudnessLeft), (.loudnessRight, loudnessRight)] {
            if let loudness, !Self.loudnessRange.contains(loudness) { problems.append(.loudness(field, value: loudness)) }
        }
        return problems
    }

    private static func tableProblems(_ table: [EarValues], _ field: HealthRecordField) -> [HealthRecordProblem] {
        var problems: [HealthRecordProblem] = []
        var seen = Set<Int>()
        for values in table {
            if let problem = frequencyProblem(values.hz, field) { problems.append(problem) }
            if !seen.insert(values.hz).inserted { problems.append(.duplicateFrequency(field, hz: values.hz)) }
            for (ear, level) in [(Ear.left, values.left), (.right, values.right)] {
                if let level, let problem = levelProblem(level, hz: values.hz, ear: ear, field) { problems.append(problem) }
            }
        }
        return problems
    }

    /// A frequency outside 125–16000 Hz.
    public static func frequencyProblem(_ hz: Int, _ field: HealthRecordField = .thresholds) -> HealthRecordProblem? {
        frequencyRange.contains(hz) ? nil : .frequency(field, hz: hz)
    }

    /// A hearing level outside −10…120 dB HL, or not in steps of 5.
    public static func levelProblem(_ level: Int, hz: Int, ear: Ear, _ field: HealthRecordField = .thresholds) -> HealthRecordProblem? {
        levelRange.contains(level) && level % levelStep == 0 ? nil : .level(field, value: level, hz: hz, ear: ear)
    }

    /// The threshold of one ear at one frequency.
    public func threshold(_ ear: Ear, at hz: Int) -> Int? {
        thresholds.first { $0.hz == hz }.flatMap { ear == .left ? $0.left : $0.right }
    }
}
