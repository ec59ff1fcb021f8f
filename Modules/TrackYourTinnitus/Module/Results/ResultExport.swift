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
        var times = LocalTimeText()
        for (index, r) in results.enumerated() {
            out += index == 0 ? "\n    " : ",\n    "
            out += "{\"time\" : \"\(times.text(r.answeredAt, utcOffset: r.utcOffset))\", \"questionnaireVersion\" : \(r.questionnaireVersion), \"values\" : ["
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

/// ISO 8601 local times with their UTC offset (`2026-11-22T16:05:09+01:00`), formatted through
/// `OffsetTimestamp` once per local day and offset; the time of day is appended by hand, which
/// keeps 43,800 results fast.
struct LocalTimeText {
    private var days: [Int: (date: String, offset: String)] = [:]

    mutating func text(_ date: Date, utcOffset: Int) -> String {
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + utcOffset
        let day = local >= 0 ? local / 86_400 : -((-local + 86_399) / 86_400)
        let second = local - day * 86_400
        let key = day &* 100_000 &+ utcOffset
        let parts: (date: String, offset: String)
        if let cached = days[key] {
            parts = cached
        } else {
            let full = OffsetTimestamp(Date(timeIntervalSince1970: Double(day * 86_400 - utcOffset)),
                                       in: TimeZone(secondsFromGMT: utcOffset) ?? .gmt).text
            parts = (String(full.prefix(11)), String(full.dropFirst(19)))
            days[key] = parts
        }
        return parts.date + Self.two(second / 3600) + ":" + Self.two(second / 60 % 60) + ":" + Self.two(second % 60) + parts.offset
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
