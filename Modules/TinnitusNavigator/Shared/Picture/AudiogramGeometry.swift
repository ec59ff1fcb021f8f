import Foundation

/// Where things lie in an audiogram picture, by clinical convention (ISO 8253-1, and as
/// audiometers print it): frequency on a logarithmic axis, each octave equally wide, from
/// 125 Hz at the left to 8000 Hz at the right (wider, by whole octaves, when a frequency lies
/// outside); hearing level growing downwards from −10 dB HL at the top to 120 at the bottom;
/// one octave as wide as 20 dB are high, so pictures from different sources compare by eye.
///
/// The SVG renderer draws with it and the picture's tests compute where a symbol must appear
/// with it, so the two cannot disagree. Foundation only (see ``AudiogramPlot``).
public struct AudiogramGeometry: Sendable, Hashable {
    /// The hearing level at the top and at the bottom (dB HL).
    public static let topLevel = -10.0
    public static let bottomLevel = 120.0
    /// The range every audiogram shows at least (Hz).
    public static let standardLowest = 125.0
    public static let standardHighest = 8000.0
    /// Decibels as high as one octave is wide.
    public static let decibelsPerOctave = 20.0

    /// The frequencies at the left and right edges of the plot (Hz), an octave multiple apart.
    public let lowestHz: Double
    public let highestHz: Double
    /// The whole picture (pixels).
    public let width: Double
    public let height: Double
    /// The plot area inside the picture.
    public let plotLeft: Double
    public let plotTop: Double
    public let plotWidth: Double
    public let plotHeight: Double

    /// Room around the plot: left for the level labels and axis title, top for the title,
    /// bottom for the frequency labels, axis title and legend.
    public static let marginLeft = 72.0, marginRight = 28.0, marginTop = 56.0, marginBottom = 122.0

    /// A picture `width` pixels wide showing `frequencies` (at least 125–8000 Hz, widened by
    /// whole octaves from 125 Hz); the height follows from the 20-dB-per-octave rule.
    public init(frequencies: [Double] = [], width: Double = 640) {
        let positive = frequencies.filter { $0 > 0 && $0.isFinite }
        let low = min(positive.min() ?? Self.standardLowest, Self.standardLowest)
        let high = max(positive.max() ?? Self.standardHighest, Self.standardHighest)
        // Whole octaves from 125 Hz, so the octave grid lines stay on 125, 250, 500, ...
        lowestHz = Self.standardLowest * pow(2, floor(log2(low / Self.standardLowest) + 1e-9))
        highestHz = Self.standardLowest * pow(2, ceil(log2(high / Self.standardLowest) - 1e-9))
        self.width = max(width, 320)
        plotLeft = Self.marginLeft
        plotTop = Self.marginTop
        plotWidth = self.width - Self.marginLeft - Self.marginRight
        let octaves = log2(highestHz / lowestHz)
        plotHeight = plotWidth / octaves * (Self.bottomLevel - Self.topLevel) / Self.decibelsPerOctave
        height = (Self.marginTop + plotHeight + Self.marginBottom).rounded(.up)
    }

    public var plotRight: Double { plotLeft + plotWidth }
    public var plotBottom: Double { plotTop + plotHeight }

    /// The width of one octave (pixels).
    public var octaveWidth: Double { plotWidth / log2(highestHz / lowestHz) }

    /// The x of a frequency.
    public func x(hz: Double) -> Double {
        plotLeft + log2(hz / lowestHz) * octaveWidth
    }

    /// The y of a hearing level (downwards: higher levels lie lower).
    public func y(db: Double) -> Double {
        plotTop + (db - Self.topLevel) / (Self.bottomLevel - Self.topLevel) * plotHeight
    }

    /// Where a level at a frequency lies.
    public func point(hz: Double, db: Double) -> (x: Double, y: Double) {
        (x(hz: hz), y(db: db))
    }

    /// The octaves from the left edge to the right (125, 250, 500, ... Hz): the grid.
    public var octaveFrequencies: [Double] {
        let count = Int(log2(highestHz / lowestHz).rounded())
        return (0...count).map { lowestHz * pow(2, Double($0)) }
    }

    /// The levels with a grid line and a label, every 10 dB.
    public var levelTicks: [Double] {
        stride(from: Self.topLevel, through: Self.bottomLevel, by: 10).map { $0 }
    }
}
