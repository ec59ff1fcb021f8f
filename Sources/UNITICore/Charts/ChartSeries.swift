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
public struct ChartSeries: Sendable, Hashable {
    public enum Style: String, Sendable {
        case line, points
    }

    public let name: String
    public let points: [ChartPoint]
    public let style: Style

    public init(name: String, points: [ChartPoint], style: Style = .line) {
        self.name = name
        self.points = points
        self.style = style
    }

    /// A time series: each value at its instant.
    public init(name: String, dated values: [(Date, Double)], style: Style = .line) {
        self.init(name: name, points: values.map { ChartPoint(x: $0.0.timeIntervalSince1970, y: $0.1) }, style: style)
    }
}
