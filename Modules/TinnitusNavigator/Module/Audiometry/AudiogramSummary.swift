import Foundation

/// An audiogram with what is computed from it, as `tn audiograms --json` and `tn audiogram
/// show --json` print it: the stored values and beside them each ear's pure-tone average and
/// grade and the person's grade (WHO 2021, by the better ear).
struct AudiogramSummary: Encodable {
    struct Averages: Encodable {
        let left: Double?
        let right: Double?
    }

    struct Grades: Encodable {
        let left: HearingLossGrade?
        let right: HearingLossGrade?
        /// The better ear's grade; nil unless both ears' averages are known.
        let overall: HearingLossGrade?
    }

    let id: String
    let date: String
    let thresholds: [EarValues]
    let discomfort: [EarValues]
    let pitchLeft: Int?
    let pitchRight: Int?
    let loudnessLeft: Int?
    let loudnessRight: Int?
    let note: String?
    let createdAt: Date
    let updatedAt: Date
    let pta: Averages
    let grade: Grades

    init(_ audiogram: Audiogram) {
        id = audiogram.id
        date = audiogram.date
        thresholds = audiogram.thresholds
        discomfort = audiogram.discomfort
        pitchLeft = audiogram.pitchLeft
        pitchRight = audiogram.pitchRight
        loudnessLeft = audiogram.loudnessLeft
        loudnessRight = audiogram.loudnessRight
        note = audiogram.note
        createdAt = audiogram.createdAt
        updatedAt = audiogram.updatedAt
        pta = Averages(left: PureToneAverage.of(audiogram, ear: .left), right: PureToneAverage.of(audiogram, ear: .right))
        grade = Grades(left: HearingLossGrade.of(audiogram, ear: .left), right: HearingLossGrade.of(audiogram, ear: .right),
                       overall: HearingLossGrade.overall(audiogram))
    }
}
