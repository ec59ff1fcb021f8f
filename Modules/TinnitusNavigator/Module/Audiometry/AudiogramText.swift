import Foundation
import UNITICore

/// How audiogram numbers read in listings, the show command and the report, in one place.
enum AudiogramText {
    /// A level or average in dB: whole numbers plain, others to one decimal (23.8).
    static func decibels(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.1f", rounded)
    }

    /// A threshold, or a dash when not measured.
    static func level(_ value: Int?) -> String {
        value.map(String.init) ?? "–"
    }

    /// A change with its sign (+5, −10, 0), or a dash when it cannot be told.
    static func change(_ value: Double?) -> String {
        guard let value else { return "–" }
        let text = decibels(abs(value))
        if text == "0" { return "0" }
        return (value > 0 ? "+" : "−") + text
    }

    /// An ear's average with its grade: `23.8 dB HL (mild)`, or a dash.
    static func average(_ audiogram: Audiogram, ear: Ear) -> String {
        guard let pta = PureToneAverage.of(audiogram, ear: ear) else { return "–" }
        return L("tn.audiogram.text.average", ["db": decibels(pta), "grade": HearingLossGrade(average: pta).title])
    }

    /// The person's grade, or a dash when the better ear cannot be told.
    static func overallGrade(_ audiogram: Audiogram) -> String {
        HearingLossGrade.overall(audiogram)?.title ?? "–"
    }

    /// The tinnitus of one ear: `6000 Hz, 45 dB`, `6000 Hz`, or nil.
    static func tinnitus(_ audiogram: Audiogram, ear: Ear) -> String? {
        let pitch = ear == .left ? audiogram.pitchLeft : audiogram.pitchRight
        let loudness = ear == .left ? audiogram.loudnessLeft : audiogram.loudnessRight
        guard let pitch else { return nil }
        guard let loudness else { return L("tn.audiogram.text.pitch", ["hz": "\(pitch)"]) }
        return L("tn.audiogram.text.pitchLoudness", ["hz": "\(pitch)", "db": "\(loudness)"])
    }

    /// Rows of the threshold table: frequency, right, left, and the discomfort thresholds
    /// when any was measured.
    static func thresholdRows(_ audiogram: Audiogram) -> (header: [String], rows: [[String]]) {
        let hasDiscomfort = !audiogram.discomfort.isEmpty
        let frequencies = Set(audiogram.thresholds.map(\.hz)).union(audiogram.discomfort.map(\.hz)).sorted()
        var header = [L("tn.audiogram.column.hz"), L("tn.audiogram.column.right"), L("tn.audiogram.column.left")]
        if hasDiscomfort { header += [L("tn.audiogram.column.discomfortRight"), L("tn.audiogram.column.discomfortLeft")] }
        let rows = frequencies.map { hz -> [String] in
            var row = ["\(hz)", level(audiogram.threshold(.right, at: hz)), level(audiogram.threshold(.left, at: hz))]
            if hasDiscomfort {
                let values = audiogram.discomfort.first { $0.hz == hz }
                row += [level(values?.right), level(values?.left)]
            }
            return row
        }
        return (header, rows)
    }
}
