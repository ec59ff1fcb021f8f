import Foundation

/// One point of a chart; for time series `x` is seconds since 1970 (``ChartSeries/init(name:dated:)``).
public struct ChartPoint: Sendable, Hashable {
    public let x: Double
    public let y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A named sequence of points, drawn as a line or as separate points.
///
/// A series may carry a ``marker``, a character drawn at each of its points (an audiogram's
/// O and X), and a fixed ``color`` where a convention decides it (right ear red, left ear
/// blue); without them the charts pick dots and colours by the series' place.
public struct ChartSeries: Sendable, Hashable {
    public enum Style: String, Sendable {
        case line, points
    }

    public let name: String
    public let points: [ChartPoint]
    public let style: Style
    /// The character drawn at every point (in the terminal on top of the line), or nil.
    public let marker: Character?
    /// The colour the series must have, or nil for the chart's next colour.
    public let color: ChartColor?

    public init(name: String, points: [ChartPoint], style: Style = .line, marker: Character? = nil, color: ChartColor? = nil) {
        self.name = name
        self.points = points
        self.style = style
        self.marker = marker
        self.color = color
    }

    /// A time series: each value at its instant.
    public init(name: String, dated values: [(Date, Double)], style: Style = .line) {
        self.init(name: name, points: values.map { ChartPoint(x: $0.0.timeIntervalSince1970, y: $0.1) }, style: style)
    }
}

/// A colour a series may be given, in the terminal's eight ANSI colours and as SVG colours.
public enum ChartColor: String, Sendable, Hashable, CaseIterable {
    case red, blue, green, yellow, magenta, cyan

    /// The ANSI escape that starts the colour.
    public var ansi: String {
        switch self {
        case .red: "\u{1B}[31m"
        case .green: "\u{1B}[32m"
        case .yellow: "\u{1B}[33m"
        case .blue: "\u{1B}[34m"
        case .magenta: "\u{1B}[35m"
        case .cyan: "\u{1B}[36m"
        }
    }

    /// The colour in SVG (strong enough to read on white and in print).
    public var svg: String {
        switch self {
        case .red: "#d62728"
        case .green: "#2ca02c"
        case .yellow: "#bcbd22"
        case .blue: "#1f4fd6"
        case .magenta: "#9467bd"
        case .cyan: "#17becf"
        }
    }
}
