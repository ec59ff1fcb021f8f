import Foundation

/// What an audiogram picture shows, as plain numbers and texts: each ear's thresholds, the
/// thresholds of discomfort, the tinnitus pitch and loudness, and the words to write.
///
/// Depends on Foundation only (no `UNITICore`), like ``AudiogramGeometry`` and ``AudiogramSVG``,
/// so the shell and the study server's portal draw the same picture; both fill it from an
/// ``Audiogram`` with their own words (`AudiogramPlot+Audiogram.swift`).
public struct AudiogramPlot: Sendable, Hashable {
    /// An ear, as the picture knows it.
    public enum Side: String, Sendable, Hashable, CaseIterable {
        case right, left
    }

    /// A level at a frequency.
    public struct Point: Sendable, Hashable {
        public var hz: Double
        public var db: Double

        public init(hz: Double, db: Double) {
            self.hz = hz
            self.db = db
        }
    }

    /// A tinnitus matched in pitch (and, where measured, loudness) on one side.
    public struct Tinnitus: Sendable, Hashable {
        public var side: Side
        public var hz: Double
        /// Loudness in dB, nil when only the pitch was matched.
        public var db: Double?

        public init(side: Side, hz: Double, db: Double?) {
            self.side = side
            self.hz = hz
            self.db = db
        }
    }

    /// The texts of the picture, in the reader's language.
    public struct Labels: Sendable, Hashable {
        public var title: String
        public var frequencyAxis: String
        public var levelAxis: String
        public var right: String
        public var left: String
        public var discomfort: String
        public var tinnitus: String

        public init(title: String, frequencyAxis: String, levelAxis: String, right: String, left: String,
                    discomfort: String, tinnitus: String) {
            self.title = title
            self.frequencyAxis = frequencyAxis
            self.levelAxis = levelAxis
            self.right = right
            self.left = left
            self.discomfort = discomfort
            self.tinnitus = tinnitus
        }
    }

    /// Hearing thresholds per side, in order of frequency; a gap (a frequency not measured)
    /// is simply absent and the line runs on to the next point.
    public var thresholds: [Side: [Point]]
    /// Thresholds of discomfort per side.
    public var discomfort: [Side: [Point]]
    public var tinnitus: [Tinnitus]
    public var labels: Labels
    /// The ears the picture shows, and whose symbols its legend names: both by default, one in
    /// a diagram per ear (TinnitusNavigator FR11, ``only(_:)``).
    public var sides: [Side]

    public init(thresholds: [Side: [Point]], discomfort: [Side: [Point]] = [:], tinnitus: [Tinnitus] = [], labels: Labels,
                sides: [Side] = Side.allCases) {
        self.thresholds = thresholds.mapValues { $0.sorted { $0.hz < $1.hz } }
        self.discomfort = discomfort.mapValues { $0.sorted { $0.hz < $1.hz } }
        self.tinnitus = tinnitus
        self.labels = labels
        self.sides = sides
    }

    /// The picture of one ear: its thresholds, thresholds of discomfort and tinnitus only,
    /// with `title` (which should name the ear).
    public func only(_ side: Side, title: String) -> AudiogramPlot {
        var labels = self.labels
        labels.title = title
        return AudiogramPlot(thresholds: thresholds.filter { $0.key == side }, discomfort: discomfort.filter { $0.key == side },
                             tinnitus: tinnitus.filter { $0.side == side }, labels: labels, sides: [side])
    }

    /// Every frequency the picture must show.
    public var frequencies: [Double] {
        thresholds.values.flatMap { $0.map(\.hz) } + discomfort.values.flatMap { $0.map(\.hz) } + tinnitus.map(\.hz)
    }
}
