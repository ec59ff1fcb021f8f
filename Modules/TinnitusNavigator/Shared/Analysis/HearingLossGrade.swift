import Foundation

/// The grades of hearing loss of the WHO World report on hearing (2021, table 1), by the
/// pure-tone average (``PureToneAverage``) in dB HL: normal below 20, mild 20 to below 35,
/// moderate 35 to below 50, moderately severe 50 to below 65, severe 65 to below 80, profound
/// 80 to below 95, complete (total) from 95. A person's grade is the better ear's.
public enum HearingLossGrade: String, Codable, Sendable, CaseIterable, Comparable {
    case normal
    case mild
    case moderate
    case moderatelySevere = "moderately-severe"
    case severe
    case profound
    case complete

    /// The lowest average of each grade, in order (the report's lower bounds, inclusive).
    public static let lowerBounds: [(grade: HearingLossGrade, from: Double)] = [
        (.complete, 95), (.profound, 80), (.severe, 65), (.moderatelySevere, 50), (.moderate, 35), (.mild, 20),
    ]

    /// The grade of an ear whose pure-tone average is `average` dB HL.
    public init(average: Double) {
        self = Self.lowerBounds.first { average >= $0.from }?.grade ?? .normal
    }

    /// The grade of one ear, nil when its average is unknown.
    public static func of(_ audiogram: Audiogram, ear: Ear) -> HearingLossGrade? {
        PureToneAverage.of(audiogram, ear: ear).map(HearingLossGrade.init(average:))
    }

    /// The person's grade: the better ear's (the lower average). Nil unless both ears'
    /// averages are known, since with one ear unknown the better ear cannot be told.
    public static func overall(_ audiogram: Audiogram) -> HearingLossGrade? {
        guard let left = PureToneAverage.of(audiogram, ear: .left), let right = PureToneAverage.of(audiogram, ear: .right) else {
            return nil
        }
        return HearingLossGrade(average: min(left, right))
    }

    public static func < (lhs: HearingLossGrade, rhs: HearingLossGrade) -> Bool {
        let order = allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}
