import UNITIProtocol

/// The comparison with all users (Track Your Stress thesis): each participant's mean for one item
/// over a period; the caller's mean is set beside the mean of all participants' means (so a person
/// who answers often does not weigh more) and placed by a mid-rank percentile. Below the minimum
/// number of participants nothing is shown, so that no single person's answers can be inferred.
public enum Comparison {
    public static func compute(questionnaireId: String, label: String, means: [Int64: Double], userId: Int64,
                               minimumParticipants: Int) -> ComparisonReport {
        let participants = means.count
        guard participants >= minimumParticipants else {
            return ComparisonReport(questionnaireId: questionnaireId, label: label, available: false,
                                    reason: "not_enough_participants", participants: participants,
                                    minimumParticipants: minimumParticipants, ownMean: nil, allParticipantsMean: nil, percentile: nil)
        }
        guard let own = means[userId] else {
            return ComparisonReport(questionnaireId: questionnaireId, label: label, available: false,
                                    reason: "no_own_answers", participants: participants,
                                    minimumParticipants: minimumParticipants, ownMean: nil, allParticipantsMean: nil, percentile: nil)
        }
        let values = Array(means.values)
        let overall = values.reduce(0, +) / Double(values.count)
        let below = values.filter { $0 < own }.count
        let equal = values.filter { $0 == own }.count
        let percentile = (Double(below) + 0.5 * Double(equal)) / Double(values.count) * 100
        return ComparisonReport(questionnaireId: questionnaireId, label: label, available: true, reason: nil,
                                participants: participants, minimumParticipants: minimumParticipants,
                                ownMean: own, allParticipantsMean: overall, percentile: percentile)
    }
}
