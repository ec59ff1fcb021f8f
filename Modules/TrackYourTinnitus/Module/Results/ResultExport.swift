import Foundation
import UNITICore
import UNITIProtocol

/// `tyt results --json`: every result with its local time and UTC offset, its eight values in
/// question order and its noise level (null when none), plus how to read them.
struct ResultExport: Encodable {
    struct Entry: Encodable {
        let time: String
        let questionnaireVersion: Int
        let values: [Int]
        let noiseDBFS: Double?

        enum CodingKeys: String, CodingKey { case time, questionnaireVersion, values, noiseDBFS }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(time, forKey: .time)
            try c.encode(questionnaireVersion, forKey: .questionnaireVersion)
            try c.encode(values, forKey: .values)
            try c.encode(noiseDBFS, forKey: .noiseDBFS)  // explicit null when there is no level
        }
    }

    let questionnaire = MomentaryQuestionnaire.id
    let items = MomentaryResult.itemLabels
    /// How the values read; item 1 keeps the thesis's coding.
    let encoding = [
        "perceived": "yes = 0, no = 1",
        "loudness": "0-100", "distress": "0-100", "stress": "0-100", "concentration": "0-100", "worst-symptom": "0-100",
        "mood": "0-7", "arousal": "0-7",
    ]
    let noiseUnit = "dBFS (RMS)"
    let calibrationOffset: Double?
    let results: [Entry]

    init(_ results: [MomentaryResult], calibrationOffset: Double?) {
        self.calibrationOffset = calibrationOffset
        self.results = results.map { r in
            Entry(time: OffsetTimestamp(r.answeredAt, in: TimeZone(secondsFromGMT: r.utcOffset) ?? .gmt).text,
                  questionnaireVersion: r.questionnaireVersion, values: r.values,
                  noiseDBFS: r.noiseDBFS.map { ($0 * 10).rounded() / 10 })
        }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(questionnaire, forKey: .questionnaire)
        try c.encode(items, forKey: .items)
        try c.encode(encoding, forKey: .encoding)
        try c.encode(noiseUnit, forKey: .noiseUnit)
        try c.encode(calibrationOffset, forKey: .calibrationOffset)
        try c.encode(results, forKey: .results)
    }

    enum CodingKeys: String, CodingKey { case questionnaire, items, encoding, noiseUnit, calibrationOffset, results }
}
