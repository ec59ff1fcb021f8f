import Foundation
import UNITICore

/// How audiogram numbers read in listings, the show command and the report, in one place.
enum AudiogramText {
    /// A level or average in dB: whole numbers plain, others to one decimal in the person's
    /// language (23.8, 23,8).
    static func decibels(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return CurrentLanguage.value.number(rounded, fractionDigits: 1)
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

    /// Rows of the threshold table: frequency, the thresholds of `ears` (right, left), and their
    /// discomfort thresholds when any was measured.
    static func thresholdRows(_ audiogram: Audiogram, ears: [Ear] = [.right, .left]) -> (header: [String], rows: [[String]]) {
        let hasDiscomfort = !audiogram.discomfort.isEmpty
        let frequencies = Set(audiogram.thresholds.map(\.hz)).union(audiogram.discomfort.map(\.hz)).sorted()
        var header = [L("tn.audiogram.column.hz")] + ears.map(\.columnTitle)
        if hasDiscomfort { header += ears.map(\.discomfortColumnTitle) }
        let rows = frequencies.map { hz -> [String] in
            var row = ["\(hz)"] + ears.map { level(audiogram.threshold($0, at: hz)) }
            if hasDiscomfort {
                let values = audiogram.discomfort.first { $0.hz == hz }
                row += ears.map { level($0 == .left ? values?.left : values?.right) }
            }
            return row
        }
        return (header, rows)
    }
}

extension Ear {
    /// The ear's column in a table of thresholds: "right", "left".
    var columnTitle: String { L(self == .left ? "tn.audiogram.column.left" : "tn.audiogram.column.right") }
    var discomfortColumnTitle: String {
        L(self == .left ? "tn.audiogram.column.discomfortLeft" : "tn.audiogram.column.discomfortRight")
    }
}
