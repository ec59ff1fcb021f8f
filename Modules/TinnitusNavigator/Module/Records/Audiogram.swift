import Foundation
import GRDB
import UNITICore

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

/// A pure-tone audiogram (thesis FR11, chapter 2): the hearing threshold of each ear at the
/// standard frequencies and any custom ones, the tinnitus pitch and loudness per ear, and the
/// threshold of discomfort where it was measured. A synced record of `tn` (kind `audiogram`).
public struct Audiogram: Codable, Sendable, Hashable, HealthRecordEntry {
    public static let databaseTableName = "tn_audiograms"
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

    public init(id: String = HealthRecordID.make(), date: LocalDate, thresholds: [EarValues], discomfort: [EarValues] = [],
                pitchLeft: Int? = nil, pitchRight: Int? = nil, loudnessLeft: Int? = nil, loudnessRight: Int? = nil,
                note: String? = nil, now: Date) throws {
        self.id = id
        self.date = date.description
        self.thresholds = thresholds.sorted { $0.hz < $1.hz }
        self.discomfort = discomfort.sorted { $0.hz < $1.hz }
        self.pitchLeft = pitchLeft
        self.pitchRight = pitchRight
        self.loudnessLeft = loudnessLeft
        self.loudnessRight = loudnessRight
        self.note = try HealthRecordText.optional(note, field: L("tn.audiogram.field.note"), limit: 4000)
        self.createdAt = now
        self.updatedAt = now
        try validate()
    }

    public var localDate: LocalDate { (try? LocalDate(parsing: date)) ?? LocalDate(year: 1970, month: 1, day: 1) }

    /// Every value in its range, each frequency once, every standard frequency present for at
    /// least one ear; the first problem named in one line.
    public func validate() throws {
        _ = try LocalDate(parsing: date)
        var seen = Set<Int>()
        for values in thresholds {
            try Self.checkFrequency(values.hz)
            guard seen.insert(values.hz).inserted else {
                throw UNITIError(L("tn.audiogram.error.duplicateFrequency", ["hz": "\(values.hz)"]))
            }
            for (ear, level) in [("left", values.left), ("right", values.right)] {
                if let level { try Self.checkLevel(level, hz: values.hz, ear: ear) }
            }
        }
        for hz in Self.standardFrequencies where !thresholds.contains(where: { $0.hz == hz && ($0.left != nil || $0.right != nil) }) {
            throw UNITIError(L("tn.audiogram.error.missingFrequency", ["hz": "\(hz)"]))
        }
        var seenDiscomfort = Set<Int>()
        for values in discomfort {
            try Self.checkFrequency(values.hz)
            guard seenDiscomfort.insert(values.hz).inserted else {
                throw UNITIError(L("tn.audiogram.error.duplicateFrequency", ["hz": "\(values.hz)"]))
            }
            for (ear, level) in [("left", values.left), ("right", values.right)] {
                if let level { try Self.checkLevel(level, hz: values.hz, ear: ear) }
            }
        }
        for pitch in [pitchLeft, pitchRight].compactMap({ $0 }) where !Self.pitchRange.contains(pitch) {
            throw UNITIError(L("tn.audiogram.error.pitch", ["value": "\(pitch)"]))
        }
        for loudness in [loudnessLeft, loudnessRight].compactMap({ $0 }) where !Self.loudnessRange.contains(loudness) {
            throw UNITIError(L("tn.audiogram.error.loudness", ["value": "\(loudness)"]))
        }
    }

    public static func checkFrequency(_ hz: Int) throws {
        guard frequencyRange.contains(hz) else {
            throw UNITIError(L("tn.audiogram.error.frequency", ["hz": "\(hz)"]))
        }
    }

    /// A hearing level in −10…120 dB HL, in steps of 5.
    public static func checkLevel(_ level: Int, hz: Int, ear: String) throws {
        guard levelRange.contains(level), level % levelStep == 0 else {
            throw UNITIError(L("tn.audiogram.error.level", ["value": "\(level)", "hz": "\(hz)", "ear": L("tn.ear.\(ear)")]))
        }
    }

    /// The threshold of one ear at one frequency.
    public func threshold(_ ear: Ear, at hz: Int) -> Int? {
        thresholds.first { $0.hz == hz }.flatMap { ear == .left ? $0.left : $0.right }
    }
}

/// Left or right.
public enum Ear: String, Codable, Sendable, CaseIterable {
    case left, right

    public var title: String { L("tn.ear.\(rawValue)") }
}
