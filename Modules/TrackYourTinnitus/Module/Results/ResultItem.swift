import Foundation
import UNITICore

/// What each of the eight values (and the noise level) is, for charts and exports: its key in
/// the string table and the range its axis spans.
struct ResultItem: Sendable {
    let label: String
    let lower: Double
    let upper: Double

    var title: String { L("tyt.item.\(label)") }

    /// The eight items in question order.
    static let all: [ResultItem] = [
        ResultItem(label: "perceived", lower: 0, upper: 1),
        ResultItem(label: "loudness", lower: 0, upper: 100),
        ResultItem(label: "distress", lower: 0, upper: 100),
        ResultItem(label: "mood", lower: 0, upper: 7),
        ResultItem(label: "arousal", lower: 0, upper: 7),
        ResultItem(label: "stress", lower: 0, upper: 100),
        ResultItem(label: "concentration", lower: 0, upper: 100),
        ResultItem(label: "worst-symptom", lower: 0, upper: 100),
    ]
}
