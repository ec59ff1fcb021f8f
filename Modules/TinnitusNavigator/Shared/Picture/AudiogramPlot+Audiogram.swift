import Foundation

extension AudiogramPlot {
    /// The picture of an audiogram, with texts in the reader's language (the shell's from its
    /// string tables, the portal's from its own).
    public init(_ audiogram: Audiogram, labels: Labels) {
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
            labels: labels)
    }
}
