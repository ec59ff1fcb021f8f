import Foundation
import UNITIProtocol

/// Draws an audiogram as a standalone SVG, by clinical convention: the right ear as red
/// circles (O) joined by a solid line, the left ear as blue crosses (X) joined by a dashed
/// line, thresholds of discomfort as U in the ear's colour, a tinnitus as a small zigzag at
/// its pitch and loudness (thesis, chapter 2.4: "a tonal tinnitus is entered as a small
/// zigzag", "the discomfort threshold (marked as U)") with a dotted line at its pitch; the
/// 0 dB line drawn strong, a legend naming every symbol. Plain SVG 1.1 with inline attributes
/// (no CSS, no scripts), so it opens alone, in an image viewer, and inline in the report.
///
/// Foundation only (see ``AudiogramPlot``); positions come from ``AudiogramGeometry``.
public struct AudiogramSVG: Sendable {
    public let geometry: AudiogramGeometry

    /// The conventional colours: red for the right ear, blue for the left.
    public static let rightColor = "#d40000"
    public static let leftColor = "#0038d4"
    /// Half the size of a symbol (pixels).
    public static let symbolRadius = 7.0

    public init(geometry: AudiogramGeometry) {
        self.geometry = geometry
    }

    /// A renderer whose picture shows every frequency of `plot`.
    public init(fitting plot: AudiogramPlot, width: Double = 640) {
        self.init(geometry: AudiogramGeometry(frequencies: plot.frequencies, width: width))
    }

    public static func color(_ side: AudiogramPlot.Side) -> String {
        side == .right ? rightColor : leftColor
    }

    /// A file of its own: the XML declaration, then the picture.
    public func document(_ plot: AudiogramPlot) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + element(plot)
    }

    /// The `<svg>` element alone, to put inline into HTML.
    public func element(_ plot: AudiogramPlot) -> String {
        let g = geometry
        let n = MarkupText.number
        let esc = MarkupText.escape
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(n(g.width))" height="\(n(g.height))" \
        viewBox="0 0 \(n(g.width)) \(n(g.height))" font-family="DejaVu Sans, Arial, sans-serif" font-size="13">
        <title>\(esc(plot.labels.title))</title>
        <rect x="0" y="0" width="\(n(g.width))" height="\(n(g.height))" fill="white"/>
        <text x="\(n(g.width / 2))" y="30" text-anchor="middle" font-size="17" font-weight="bold">\(esc(plot.labels.title))</text>

        """
        svg += grid()
        // Lines first, then the symbols on top of every line: the circle is open (white
        // inside), as on paper, and no line runs through a symbol.
        svg += "<g class=\"thresholds\" fill=\"none\" stroke-width=\"2\">\n"
        for side in plot.sides {
            let points = plot.thresholds[side] ?? []
            guard points.count > 1 else { continue }
            // Typed, so a string-interpolating type of another module (GRDB's SQL, whose
            // `joined` is visible module-wide) cannot be inferred in its place.
            let coordinates: [String] = points.map { p -> String in
                let (x, y) = g.point(hz: p.hz, db: p.db)
                return "\(n(x)),\(n(y))"
            }
            let list: String = coordinates.joined(separator: " ")
            let dash = side == .left ? " stroke-dasharray=\"7 4\"" : ""
            svg += "<polyline class=\"\(side.rawValue)-line\" stroke=\"\(Self.color(side))\"\(dash) points=\"\(list)\"/>\n"
        }
        for side in plot.sides {
            for p in plot.thresholds[side] ?? [] {
                svg += symbol(side, at: g.point(hz: p.hz, db: p.db))
            }
        }
        svg += "</g>\n<g class=\"discomfort\" fill=\"none\" stroke-width=\"2\">\n"
        for side in plot.sides {
            for p in plot.discomfort[side] ?? [] {
                svg += discomfortMark(side, at: g.point(hz: p.hz, db: p.db))
            }
        }
        svg += "</g>\n<g class=\"tinnitus\" fill=\"none\" stroke-width=\"2\">\n"
        for mark in plot.tinnitus {
            let x = g.x(hz: mark.hz)
            let color = Self.color(mark.side)
            svg += "<line x1=\"\(n(x))\" y1=\"\(n(g.plotTop))\" x2=\"\(n(x))\" y2=\"\(n(g.plotBottom))\" stroke=\"\(color)\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>\n"
            svg += zigzag(at: (x, g.y(db: mark.db ?? AudiogramGeometry.topLevel)), color: color)
        }
        svg += "</g>\n"
        svg += legend(plot)
        svg += "</svg>\n"
        return svg
    }

    /// Grid lines at every octave and every 10 dB, their labels, the strong 0 dB line, the
    /// frame and both axis titles.
    public func grid() -> String {
        let g = geometry
        let n = MarkupText.number
        var svg = "<g class=\"grid\" stroke=\"#c8c8c8\" stroke-width=\"1\">\n"
        for hz in g.octaveFrequencies {
            let x = g.x(hz: hz)
            svg += "<line x1=\"\(n(x))\" y1=\"\(n(g.plotTop))\" x2=\"\(n(x))\" y2=\"\(n(g.plotBottom))\"/>\n"
            svg += "<text x=\"\(n(x))\" y=\"\(n(g.plotBottom + 20))\" text-anchor=\"middle\" stroke=\"none\" fill=\"#222\">\(Self.frequencyLabel(hz))</text>\n"
        }
        for db in g.levelTicks {
            let y = g.y(db: db)
            svg += "<line x1=\"\(n(g.plotLeft))\" y1=\"\(n(y))\" x2=\"\(n(g.plotRight))\" y2=\"\(n(y))\"/>\n"
            svg += "<text x=\"\(n(g.plotLeft - 8))\" y=\"\(n(y + 4))\" text-anchor=\"end\" stroke=\"none\" fill=\"#222\">\(n(db))</text>\n"
        }
        svg += "</g>\n"
        let zero = g.y(db: 0)
        svg += "<line class=\"zero\" x1=\"\(n(g.plotLeft))\" y1=\"\(n(zero))\" x2=\"\(n(g.plotRight))\" y2=\"\(n(zero))\" stroke=\"#222\" stroke-width=\"1.5\"/>\n"
        svg += "<rect class=\"frame\" x=\"\(n(g.plotLeft))\" y=\"\(n(g.plotTop))\" width=\"\(n(g.plotWidth))\" height=\"\(n(g.plotHeight))\" fill=\"none\" stroke=\"#222\"/>\n"
        return svg
    }

    /// `125`, `250`, `500`, `1k`, ... `16k`.
    public static func frequencyLabel(_ hz: Double) -> String {
        hz >= 1000 ? "\(MarkupText.number(hz / 1000))k" : MarkupText.number(hz)
    }

    /// O for the right ear, X for the left.
    public func symbol(_ side: AudiogramPlot.Side, at point: (x: Double, y: Double)) -> String {
        let n = MarkupText.number
        let r = Self.symbolRadius
        switch side {
        case .right:
            return "<circle class=\"right-ear\" cx=\"\(n(point.x))\" cy=\"\(n(point.y))\" r=\"\(n(r))\" fill=\"white\" stroke=\"\(Self.rightColor)\" stroke-width=\"2.5\"/>\n"
        case .left:
            let d = r * 0.85
            return "<path class=\"left-ear\" d=\"M\(n(point.x - d)) \(n(point.y - d)) L\(n(point.x + d)) \(n(point.y + d)) "
                + "M\(n(point.x + d)) \(n(point.y - d)) L\(n(point.x - d)) \(n(point.y + d))\" stroke=\"\(Self.leftColor)\" stroke-width=\"2.5\"/>\n"
        }
    }

    /// A U whose bottom sits on the threshold of discomfort.
    public func discomfortMark(_ side: AudiogramPlot.Side, at point: (x: Double, y: Double)) -> String {
        let n = MarkupText.number
        let w = 5.0, h = 10.0
        return "<path class=\"\(side.rawValue)-discomfort\" d=\"M\(n(point.x - w)) \(n(point.y - h)) V\(n(point.y - w)) "
            + "A\(n(w)) \(n(w)) 0 0 0 \(n(point.x + w)) \(n(point.y - w)) V\(n(point.y - h))\" stroke=\"\(Self.color(side))\"/>\n"
    }

    /// A small zigzag centred on a point: a matched tonal tinnitus.
    public func zigzag(at point: (x: Double, y: Double), color: String) -> String {
        let n = MarkupText.number
        let step = 3.5, height = 5.0
        var d = "M\(n(point.x - 4 * step)) \(n(point.y))"
        for i in 0..<8 {
            let x = point.x - 4 * step + Double(i + 1) * step
            d += " L\(n(x)) \(n(point.y + (i % 2 == 0 ? -height : height)))"
        }
        return "<path class=\"tinnitus-mark\" d=\"\(d)\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
    }

    /// The symbols and what they mean, in two columns under the frequency axis title.
    public func legend(_ plot: AudiogramPlot) -> String {
        let g = geometry
        let n = MarkupText.number
        let esc = MarkupText.escape
        var svg = "<text x=\"\(n(g.plotLeft + g.plotWidth / 2))\" y=\"\(n(g.plotBottom + 42))\" text-anchor=\"middle\">\(esc(plot.labels.frequencyAxis))</text>\n"
        let middle = g.plotTop + g.plotHeight / 2
        svg += "<text x=\"20\" y=\"\(n(middle))\" text-anchor=\"middle\" transform=\"rotate(-90 20 \(n(middle)))\">\(esc(plot.labels.levelAxis))</text>\n"
        let top = g.plotBottom + 66
        let column = g.plotWidth / 2
        // Only the symbols of the ears shown: a diagram of one ear names that ear's alone.
        let sides = plot.sides
        var entries: [(draw: (Double, Double) -> String, text: String)] = sides.map { side in
            ({ x, y in symbol(side, at: (x, y)) }, side == .right ? plot.labels.right : plot.labels.left)
        }
        entries.append(({ x, y in
            sides.count == 1 ? discomfortMark(sides[0], at: (x, y + 6))
                : discomfortMark(.right, at: (x - 7, y + 6)) + discomfortMark(.left, at: (x + 7, y + 6))
        }, plot.labels.discomfort))
        entries.append(({ x, y in zigzag(at: (x, y), color: Self.color(sides.first ?? .right)) }, plot.labels.tinnitus))
        svg += "<g class=\"legend\" fill=\"none\">\n"
        for (index, entry) in entries.enumerated() {
            let x = g.plotLeft + 16 + Double(index % 2) * column
            let y = top + Double(index / 2) * 26
            svg += entry.draw(x, y)
            svg += "<text x=\"\(n(x + 24))\" y=\"\(n(y + 5))\" fill=\"#222\">\(esc(entry.text))</text>\n"
        }
        svg += "</g>\n"
        return svg
    }
}
