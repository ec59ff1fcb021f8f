/// `GET /api/v1/comparison?questionnaire=Q&label=L&from=..&to=..`: the participant's mean for one
/// questionnaire item over a period beside everyone's (Track Your Stress thesis: comparison with all users).
public struct ComparisonReport: Codable, Hashable, Sendable {
    public var questionnaireId: String
    public var label: String
    /// False when fewer than `minimumParticipants` contributed (or the caller did not): then the
    /// figures below are absent and `reason` says why.
    public var available: Bool
    public var reason: String?
    public var participants: Int
    public var minimumParticipants: Int
    public var ownMean: Double?
    /// The mean of every participant's own mean (each person counts once, however often they answered).
    public var allParticipantsMean: Double?
    /// Where the caller's mean lies among all participants' means, 0–100 (mid-rank).
    public var percentile: Double?

    public init(questionnaireId: String, label: String, available: Bool, reason: String?, participants: Int,
                minimumParticipants: Int, ownMean: Double?, allParticipantsMean: Double?, percentile: Double?) {
        self.questionnaireId = questionnaireId
        self.label = label
        self.available = available
        self.reason = reason
        self.participants = participants
        self.minimumParticipants = minimumParticipants
        self.ownMean = ownMean
        self.allParticipantsMean = allParticipantsMean
        self.percentile = percentile
    }
}
