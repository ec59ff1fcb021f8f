import Foundation

/// One answered momentary questionnaire: when, which version, the eight values in question order
/// and the ambient noise level (thesis 4.2). Item 1 is stored as the thesis did: yes = 0, no = 1.
public struct MomentaryResult: Sendable, Hashable {
    public var id: String
    public var answeredAt: Date
    /// Seconds east of UTC at the time of answering, so the local time can be shown as it was.
    public var utcOffset: Int
    public var questionnaireID: String
    public var questionnaireVersion: Int
    /// perceived, loudness, distress, mood, arousal, stress, concentration, worst symptom.
    public var values: [Int]
    /// RMS level in dBFS, nil when none was measured.
    public var noiseDBFS: Double?

    public init(id: String, answeredAt: Date, utcOffset: Int, questionnaireID: String,
                questionnaireVersion: Int, values: [Int], noiseDBFS: Double?) {
        self.id = id
        self.answeredAt = answeredAt
        self.utcOffset = utcOffset
        self.questionnaireID = questionnaireID
        self.questionnaireVersion = questionnaireVersion
        self.values = values
        self.noiseDBFS = noiseDBFS
    }

    /// The labels of the eight items in the bundled questionnaire, in question order; a newer
    /// version from the server must keep them to be stored here.
    public static let itemLabels = ["perceived", "loudness", "distress", "mood", "arousal", "stress", "concentration", "worst-symptom"]
}
