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

    /// The picture of both ears, or of `ear` alone (`tn audiogram show ID --ear left`).
    init(_ audiogram: Audiogram, ear: Ear?) {
        self.init(audiogram)
        if let ear {
            self = only(Side(ear), title: L("tn.audiogram.picture.titleEar", ["date": audiogram.date, "ear": ear.title]))
        }
    }
}

extension AudiogramPlot.Side {
    init(_ ear: Ear) {
        self = ear == .left ? .left : .right
    }
}
