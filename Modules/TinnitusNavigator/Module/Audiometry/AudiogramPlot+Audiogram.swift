import Foundation
import UNITICore

extension AudiogramPlot {
    /// The picture of an audiogram, with the texts in the current language.
    init(_ audiogram: Audiogram) {
        func points(_ table: [EarValues], _ ear: Ear) -> [Point] {
            table.compactMap { values in
                (ear == .left ? values.left : values.right).map { Point(hz: Double(values.hz), db: Double($0)) }
            }
        }
        var tinnitus: [Tinnitus] = []
        if let pitch = audiogram.pitchRight {
            tinnitus.append(Tinnitus(side: .right, hz: Double(pitch), db: audiogram.loudnessRight.map(Double.init)))
        }
        if let pitch = audiogram.pitchLeft {
            tinnitus.append(Tinnitus(side: .left, hz: Double(pitch), db: audiogram.loudnessLeft.map(Double.init)))
        }
        self.init(
            thresholds: [.right: points(audiogram.thresholds, .right), .left: points(audiogram.thresholds, .left)],
            discomfort: [.right: points(audiogram.discomfort, .right), .left: points(audiogram.discomfort, .left)],
            tinnitus: tinnitus,
            labels: Labels(title: L("tn.audiogram.picture.title", ["date": audiogram.date]),
                           frequencyAxis: L("tn.audiogram.picture.frequency"), levelAxis: L("tn.audiogram.picture.level"),
                           right: L("tn.audiogram.picture.right"), left: L("tn.audiogram.picture.left"),
                           discomfort: L("tn.audiogram.picture.discomfort"), tinnitus: L("tn.audiogram.picture.tinnitus")))
    }
}
