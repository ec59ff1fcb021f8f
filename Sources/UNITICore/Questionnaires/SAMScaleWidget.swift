import Foundation
import UNITIProtocol

/// A Self-Assessment Manikin row: the figures of ``SAMPictograms`` side by side with their
/// numbers, the chosen one in reverse video (or marked by a line of `^` under it where the
/// console shows no ANSI attributes), and the end labels below. Like a slider it starts with
/// nothing chosen, so nobody is anchored to a default figure.
///
/// Keys are those of ``PointScaleWidget``, which this wraps for its selection: left and right move
/// (the first press starts in the middle), Home/End go to the ends, a digit chooses that point,
/// Backspace clears, and Enter confirms only once a figure is chosen. On a terminal too narrow
/// for the figures the row falls back to the one-line pictograms of the point scale.
public struct SAMScaleWidget: QuestionWidget {
    /// Selection and keys; its faces are the one-line pictograms.
    public private(set) var points: PointScaleWidget
    /// One figure per point, left to right.
    public let figures: [[String]]
    /// Whether the console shows reverse video.
    public let colors: Bool

    /// - Parameters:
    ///   - element: a `samValence` or `samArousal` element.
    ///   - caption: the line under the numbers (the names of both ends).
    public init(element: QuestionnaireElement, required: Bool, caption: String, colors: Bool) {
        let figures = SAMPictograms.figures(for: element)
        self.figures = figures
        self.colors = colors
        self.points = PointScaleWidget(values: Array(1...max(figures.count, 1)),
                                       faces: SAMPictograms.compactGlyphs(for: element),
                                       required: required, caption: caption)
    }

    /// The index of the chosen figure (0 = leftmost), nil while none is.
    public var selected: Int? { points.selected }

    public mutating func handle(_ key: Key) -> WidgetStep {
        points.handle(key)
    }

    public func render(width: Int) -> [String] {
        guard SAMPictograms.rowWidth(count: figures.count) <= width else { return points.render(width: width) }
        let row = SAMPictograms.lines(figures: figures, selected: selected,
                                      highlight: colors ? .reverseVideo : .markerLine)
        return points.caption.isEmpty ? row : row + ["  " + points.caption]
    }
}
