import Foundation
import UNITICore

/// An audiogram being entered or edited: the values by frequency, changed piece by piece (by
/// prompts, by options) and turned into an ``Audiogram`` once every value is good. Keeping it
/// apart from the record lets an edit change only what its options name.
struct AudiogramDraft {
    var date: LocalDate
    /// Thresholds by frequency.
    var thresholds: [Int: EarValues] = [:]
    /// Thresholds of discomfort by frequency.
    var discomfort: [Int: EarValues] = [:]
    var pitchLeft: Int?
    var pitchRight: Int?
    var loudnessLeft: Int?
    var loudnessRight: Int?
    var note: String?

    init(date: LocalDate) {
        self.date = date
    }

    /// A draft holding everything `audiogram` holds, to edit it.
    init(_ audiogram: Audiogram) {
        date = audiogram.localDate
        thresholds = Dictionary(audiogram.thresholds.map { ($0.hz, $0) }, uniquingKeysWith: { first, _ in first })
        discomfort = Dictionary(audiogram.discomfort.map { ($0.hz, $0) }, uniquingKeysWith: { first, _ in first })
        pitchLeft = audiogram.pitchLeft
        pitchRight = audiogram.pitchRight
        loudnessLeft = audiogram.loudnessLeft
        loudnessRight = audiogram.loudnessRight
        note = audiogram.note
    }

    /// Sets one ear's threshold at one frequency (nil: not measured).
    mutating func setThreshold(_ level: Int?, ear: Ear, hz: Int) {
        var values = thresholds[hz] ?? EarValues(hz: hz, left: nil, right: nil)
        if ear == .left { values.left = level } else { values.right = level }
        thresholds[hz] = values.left == nil && values.right == nil ? nil : values
    }

    /// Puts `values` in place of what `table` held at its frequency; both ears empty removes it.
    static func replace(_ values: EarValues, in table: inout [Int: EarValues]) {
        table[values.hz] = values.left == nil && values.right == nil ? nil : values
    }

    mutating func setPitch(_ hz: Int?, ear: Ear) {
        if ear == .left { pitchLeft = hz } else { pitchRight = hz }
    }

    mutating func setLoudness(_ db: Int?, ear: Ear) {
        if ear == .left { loudnessLeft = db } else { loudnessRight = db }
    }

    /// Standard frequencies without a value for either ear: every audiogram needs them.
    var missingStandardFrequencies: [Int] {
        Audiogram.standardFrequencies.filter { thresholds[$0] == nil }
    }

    /// Notes every standard frequency without a value in `parser`.
    func checkComplete(_ parser: inout AudiogramValueParser) {
        for hz in missingStandardFrequencies {
            parser.note(L("tn.audiogram.problem.missing", ["hz": "\(hz)"]))
        }
    }

    /// The record: a new one (`id` nil) or the edited version of `original`, keeping its id and
    /// creation time. Throws the record's own check (a note too long) in one line.
    func audiogram(replacing original: Audiogram? = nil, now: Date) throws -> Audiogram {
        var audiogram = try Audiogram(
            id: original?.id ?? HealthRecordID.make(), date: date, thresholds: Array(thresholds.values),
            discomfort: Array(discomfort.values), pitchLeft: pitchLeft, pitchRight: pitchRight,
            loudnessLeft: loudnessLeft, loudnessRight: loudnessRight, note: note, now: now)
        if let original { audiogram.createdAt = original.createdAt }
        return audiogram
    }
}
