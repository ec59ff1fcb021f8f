import Foundation
import UNITIProtocol

/// A chart as an SVG file that any browser shows: title, both axes with ticks and tick labels,
/// axis titles, one polyline (or dots) per series and a legend. Uses the same ``ChartAxis``
/// as the terminal charts, so logarithmic frequency axes and date axes look alike in both.
///
/// The SVG is plain SVG 1.1 with inline attributes (no CSS or scripts), so it also opens in
/// image viewers and can be embedded in reports. Long series are drawn as given; thin or
/// aggregate them first with ``SeriesReduction`` when the file should stay small.
public struct SVGChart: Sendable {
    public let title: String
    public let width: Int
    public let height: Int

    static let colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]

    public init(title: String, width: Int = 800, height: Int = 450) {
        self.title = title
        self.width = max(width, 200)
        self.height = max(height, 150)
    }

    public func render(_ series: [ChartSeries], x: ChartAxis, y: ChartAxis) -> String {
        let left = 70.0, right = Double(width) - 20, top = 50.0
        let legendHeight = 20.0 * Double((series.count + 2) / 3)
        let bottom = Double(height) - 50 - legendHeight
        func px(_ value: Double) -> Double? { x.position(of: value).map { left + $0 * (right - left) } }
        func py(_ value: Double) -> Double? { y.position(of: value).map { bottom - $0 * (bottom - top) } }

        var svg = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
        <title>\(Self.escape(title))</title>
        <rect x="0" y="0" width="\(width)" height="\(height)" fill="white"/>
        <text x="\(Self.n(Double(width) / 2))" y="28" text-anchor="middle" font-size="16" font-weight="bold">\(Self.escape(title))</text>

        """
        // Grid, ticks and tick labels.
        svg += "<g class=\"x-axis\" stroke=\"#ccc\">\n"
        for tick in x.ticks(maximum: max(2, width / 90)) {
            guard let tx = px(tick), tx >= left - 0.5, tx <= right + 0.5 else { continue }
            svg += "<line x1=\"\(Self.n(tx))\" y1=\"\(Self.n(top))\" x2=\"\(Self.n(tx))\" y2=\"\(Self.n(bottom + 5))\"/>\n"
            svg += "<text class=\"tick\" x=\"\(Self.n(tx))\" y=\"\(Self.n(bottom + 20))\" text-anchor=\"middle\" stroke=\"none\" fill=\"#333\">\(Self.escape(x.label(tick)))</text>\n"
        }
        svg += "</g>\n<g class=\"y-axis\" stroke=\"#ccc\">\n"
        for tick in y.ticks(maximum: max(2, height / 60)) {
            guard let ty = py(tick), ty >= top - 0.5, ty <= bottom + 0.5 else { continue }
            svg += "<line x1=\"\(Self.n(left - 5))\" y1=\"\(Self.n(ty))\" x2=\"\(Self.n(right))\" y2=\"\(Self.n(ty))\"/>\n"
            svg += "<text class=\"tick\" x=\"\(Self.n(left - 8))\" y=\"\(Self.n(ty + 4))\" text-anchor=\"end\" stroke=\"none\" fill=\"#333\">\(Self.escape(y.label(tick)))</text>\n"
        }
        svg += "</g>\n"
        svg += "<line x1=\"\(Self.n(left))\" y1=\"\(Self.n(bottom))\" x2=\"\(Self.n(right))\" y2=\"\(Self.n(bottom))\" stroke=\"black\"/>\n"
        svg += "<line x1=\"\(Self.n(left))\" y1=\"\(Self.n(top))\" x2=\"\(Self.n(left))\" y2=\"\(Self.n(bottom))\" stroke=\"black\"/>\n"
        if let title = x.title {
            svg += "<text x=\"\(Self.n((left + right) / 2))\" y=\"\(Self.n(bottom + 38))\" text-anchor=\"middle\">\(Self.escape(title))</text>\n"
        }
        if let title = y.title {
            svg += "<text x=\"16\" y=\"\(Self.n((top + bottom) / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(Self.n((top + bottom) / 2)))\">\(Self.escape(title))</text>\n"
        }

        // Series, clipped to the plot area.
        svg += "<clipPath id=\"plot\"><rect x=\"\(Self.n(left))\" y=\"\(Self.n(top))\" width=\"\(Self.n(right - left))\" height=\"\(Self.n(bottom - top))\"/></clipPath>\n"
        svg += "<g clip-path=\"url(#plot)\">\n"
        for (index, s) in series.enumerated() {
            let color = s.color?.svg ?? Self.colors[index % Self.colors.count]
            let coordinates = s.points.compactMap { p -> (Double, Double)? in
                guard let a = px(p.x), let b = py(p.y), a.isFinite, b.isFinite else { return nil }
                return (a, b)
            }
            switch s.style {
            case .line:
                let list = coordinates.map { "\(Self.n($0.0)),\(Self.n($0.1))" }.joined(separator: " ")
                svg += "<polyline class=\"series\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(list)\"/>\n"
            case .points:
                svg += "<g class=\"series\" fill=\"\(color)\">"
                for (a, b) in coordinates { svg += "<circle cx=\"\(Self.n(a))\" cy=\"\(Self.n(b))\" r=\"2\"/>" }
                svg += "</g>\n"
            }
            if let marker = s.marker {
                svg += "<g class=\"markers\" fill=\"\(color)\" text-anchor=\"middle\" font-size=\"14\">"
                for (a, b) in coordinates {
                    svg += "<text x=\"\(Self.n(a))\" y=\"\(Self.n(b + 5))\">\(Self.escape(String(marker)))</text>"
                }
                svg += "</g>\n"
            }
        }
        svg += "</g>\n"

        // Legend below the axis labels, three entries a row.
        svg += "<g class=\"legend\">\n"
        for (index, s) in series.enumerated() {
            let lx = left + Double(index % 3) * ((right - left) / 3)
            let ly = Double(height) - legendHeight - 5 + Double(index / 3) * 20
            let color = s.color?.svg ?? Self.colors[index % Self.colors.count]
            svg += "<rect x=\"\(Self.n(lx))\" y=\"\(Self.n(ly))\" width=\"14\" height=\"10\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(Self.n(lx + 20))\" y=\"\(Self.n(ly + 10))\">\(Self.escape(s.name))</text>\n"
        }
        svg += "</g>\n</svg>\n"
        return svg
    }

    /// Escapes text for XML content and attribute values (``MarkupText``).
    static func escape(_ text: String) -> String { MarkupText.escape(text) }

    /// A coordinate with at most two decimals.
    static func n(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(rounded)
    }
}
