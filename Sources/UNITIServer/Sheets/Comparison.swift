import UNITIProtocol

/// The comparison with all users (Track Your Stress thesis): each participant's mean for one item
/// over a period; the caller's mean is set beside the mean of all participants' means (so a person
/// who answers often does not weigh more) and placed by a mid-rank percentile. Below the minimum
/// number of participants nothing is shown, so that no single person's answers can be inferred.
public enum Comparison {
    public static func compute(questionnaireId: String, label: String, figures: ComparisonFigures,
                               minimumParticipants: Int) -> ComparisonReport {
        let participants = figures.participants
        guard participants >= minimumParticipants else {
            return ComparisonReport(questionnaireId: questionnaireId, label: label, available: false,
                                    reason: "not_enough_participants", participants: participants,
                                    minimumParticipants: minimumParticipants, ownMean: nil, allParticipantsMean: nil, percentile: nil)
        }
        guard let own = figures.ownMean else {
            return ComparisonReport(questionnaireId: questionnaireId, label: label, available: false,
                                    reason: "no_own_answers", participants: participants,
                                    minimumParticipants: minimumParticipants, ownMean: nil, allParticipantsMean: nil, percentile: nil)
        }
        let overall = figures.sumOfMeans / Double(participants)
        let percentile = (Double(figures.below) + 0.5 * Double(figures.equal)) / Double(participants) * 100
        return ComparisonReport(questionnaireId: questionnaireId, label: label, available: true, reason: nil,
                                participants: participants, minimumParticipants: minimumParticipants,
                                ownMean: own, allParticipantsMean: overall, percentile: percentile)
    }
}

/// What the comparison needs of all participants' means, summed up by the store
/// (``ServerStore/comparisonFigures(questionnaireId:studyId:label:from:to:userId:)``): how many
/// there are, their sum, the caller's own, and how many lie below it and at it.
public struct ComparisonFigures: Sendable, Equatable {
    public var participants: Int
    public var sumOfMeans: Double
    public var ownMean: Double?
    public var below: Int
    public var equal: Int

    public init(participants: Int, sumOfMeans: Double, ownMean: Double?, below: Int, equal: Int) {
        self.participants = participants
        self.sumOfMeans = sumOfMeans
        self.ownMean = ownMean
        self.below = below
        self.equal = equal
    }
}
