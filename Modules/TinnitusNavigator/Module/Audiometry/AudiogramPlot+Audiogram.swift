import Foundation
import UNITICore

extension AudiogramPlot {
    /// The picture of an audiogram, with the texts in the current language.
    init(_ audiogram: Audiogram) {
        self.init(audiogram, labels: Labels(
            title: L("tn.audiogram.picture.title", ["date": audiogram.date]),
            frequencyAxis: L("tn.audiogram.picture.frequency"), levelAxis: L("tn.audiogram.picture.level"),
            right: L("tn.audiogram.picture.right"), left: L("tn.audiogram.picture.left"),
            discomfort: L("tn.audiogram.picture.discomfort"), tinnitus: L("tn.audiogram.picture.tinnitus")))
    }
}
