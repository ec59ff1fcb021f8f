import Foundation
import UNITICore
import UNITIProtocol

/// `tyt results --json`: every result with its local time and UTC offset, its eight values in
/// question order and its noise level (null when none), plus how to read them.
///
/// Written by hand, one result per line: ten years of check-ins (43,800) would take seconds
/// through a pretty-printing `JSONEncoder`. Every string in it is fixed text or a timestamp,
/// so nothing needs escaping beyond what `quoted` does.
struct ResultExport {
    let results: [MomentaryResult]
    let calibrationOffset: Double?

    /// How the values read; item 1 keeps the thesis's coding.
    static let encoding: KeyValuePairs = [
        "perceived": "yes = 0, no = 1",
        "loudness": "0-100", "distress": "0-100", "mood": "0-7", "arousal": "0-7",
        "stress": "0-100", "concentration": "0-100", "worst-symptom": "0-100",
    ]

    init(_ results: [MomentaryResult], calibrationOffset: Double?) {
        self.results = results
        self.calibrationOffset = calibrationOffset
    }

    func render() -> String {
        var out = "{\n"
        out += "  \"questionnaire\" : \(quoted(MomentaryQuestionnaire.id)),\n"
        out += "  \"items\" : [" + MomentaryResult.itemLabels.map(quoted).joined(separator: ", ") + "],\n"
        out += "  \"encoding\" : {" + Self.encoding.map { "\(quoted($0.key)) : \(quoted($0.value))" }.joined(separator: ", ") + "},\n"
        out += "  \"noiseUnit\" : \"dBFS (RMS)\",\n"
        out += "  \"calibrationOffset\" : \(calibrationOffset.map { "\($0)" } ?? "null"),\n"
        out += "  \"results\" : ["
        out.reserveCapacity(out.utf8.count + results.count * 140)
        var zones: [Int: TimeZone] = [:]
        for (index, r) in results.enumerated() {
            let zone = zones[r.utcOffset] ?? TimeZone(secondsFromGMT: r.utcOffset) ?? .gmt
            zones[r.utcOffset] = zone
            out += index == 0 ? "\n    " : ",\n    "
            out += "{\"time\" : \"\(OffsetTimestamp(r.answeredAt, in: zone).text)\", \"questionnaireVersion\" : \(r.questionnaireVersion), \"values\" : ["
            out += r.values.map(String.init).joined(separator: ", ")
            out += "], \"noiseDBFS\" : " + (r.noiseDBFS.map { "\(($0 * 10).rounded() / 10)" } ?? "null") + "}"
        }
        out += results.isEmpty ? "]\n}" : "\n  ]\n}"
        return out
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
