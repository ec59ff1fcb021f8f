import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import UNITITesting
@testable import TinnitusNavigator
@testable import UNITICore

@Suite("TinnitusNavigator: the audiogram as SVG, checked as markup and as a person sees it in Chromium", .timeLimit(.minutes(10)))
struct AudiogramPictureTests {
    /// Right ear at 1000 Hz 20 dB, left ear at 2000 Hz 70 dB, the lines far from the other
    /// ear's symbol; nothing below 95 dB, so the lower plot (4000 Hz, 110 dB) stays empty.
    static func plot(title: String = "Audiogram") -> AudiogramPlot {
        AudiogramPlot(
            thresholds: [
                .right: [.init(hz: 250, db: 10), .init(hz: 1000, db: 20), .init(hz: 8000, db: 30)],
                .left: [.init(hz: 250, db: 50), .init(hz: 2000, db: 70), .init(hz: 8000, db: 60)],
            ],
            discomfort: [.right: [.init(hz: 500, db: 95)]],
            tinnitus: [.init(side: .left, hz: 6000, db: 55)],
            labels: .init(title: title, frequencyAxis: "Frequency (Hz)", levelAxis: "Hearing level (dB HL)",
                          right: "right ear", left: "left ear", discomfort: "threshold of discomfort", tinnitus: "tinnitus"))
    }

    /// Element names and attributes of a document, read by XMLParser (fails on malformed XML).
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var text = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append((name, attributes))
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    }

    @Test("the SVG is well-formed and standalone: xmlns, width, height, viewBox, title, escaped text, a legend")
    func wellFormed() throws {
        let plot = Self.plot(title: "Ohr <rechts> & \"links\"")
        let renderer = AudiogramSVG(fitting: plot)
        let svg = renderer.document(plot)
        let collector = Collector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        let root = try #require(collector.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["width"] == "640" && root.attributes["height"] == "\(Int(renderer.geometry.height))")
        #expect(root.attributes["viewBox"] == "0 0 640 \(Int(renderer.geometry.height))")
        #expect(collector.text.contains("Ohr <rechts> & \"links\""))
        #expect(!svg.contains("<rechts>") && !svg.contains("<script"))
        #expect(collector.elements.filter { $0.attributes["class"] == "right-ear" }.count == 4)  // 3 points + legend
        #expect(collector.elements.filter { $0.attributes["class"] == "left-ear" }.count == 4)
        #expect(collector.elements.contains { $0.attributes["class"] == "right-discomfort" })
        #expect(collector.elements.contains { $0.attributes["class"] == "tinnitus-mark" })
        #expect(collector.elements.contains { $0.attributes["class"] == "zero" })
        for label in ["right ear", "left ear", "threshold of discomfort", "tinnitus", "Frequency (Hz)", "Hearing level (dB HL)", "8k", "125"] {
            #expect(collector.text.contains(label), "\(label)")
        }
        // The right ear's symbol is red, the left's blue, by convention.
        #expect(collector.elements.first { $0.attributes["class"] == "right-ear" }?.attributes["stroke"] == AudiogramSVG.rightColor)
        #expect(collector.elements.first { $0.attributes["class"] == "left-ear" }?.attributes["stroke"] == AudiogramSVG.leftColor)
        // Each ear's line joins its points, as plain coordinates.
        let lines = collector.elements.filter { $0.name == "polyline" }
        #expect(lines.count == 2)
        for line in lines {
            let points = line.attributes["points"] ?? ""
            #expect(points.range(of: #"^(-?\d+(\.\d+)?,-?\d+(\.\d+)? ){2}-?\d+(\.\d+)?,-?\d+(\.\d+)?$"#, options: .regularExpression) != nil,
                    "\(points.prefix(200))")
        }
        #expect(!svg.contains("SQL"))
        // Inline, the element has no XML declaration.
        #expect(renderer.element(plot).hasPrefix("<svg "))
    }

    @Test("the adapter draws a record's values and texts: custom frequencies widen the picture")
    func adapter() throws {
        let audiogram = try Audiogram(
            date: TNFixture.today,
            thresholds: Audiogram.standardFrequencies.map { EarValues(hz: $0, left: 20, right: nil) }
                + [EarValues(hz: 12_000, left: nil, right: 70)],
            discomfort: [EarValues(hz: 1000, left: 90, right: nil)], pitchLeft: 4000, now: TNFixture.now)
        let plot = AudiogramPlot(audiogram)
        #expect(plot.thresholds[.left]?.count == 7 && plot.thresholds[.right] == [.init(hz: 12_000, db: 70)])
        #expect(plot.discomfort[.left] == [.init(hz: 1000, db: 90)])
        #expect(plot.tinnitus == [.init(side: .left, hz: 4000, db: nil)])
        #expect(plot.labels.title == "Audiogram of 2026-11-23")
        #expect(AudiogramSVG(fitting: plot).geometry.highestHz == 16_000)
    }

    @Test("in Chromium, red lies on the right ear's circle, blue on the left ear's cross, neither where nothing is drawn")
    func pixelsInChromium() throws {
        let plot = Self.plot()
        let renderer = AudiogramSVG(fitting: plot)
        let directory = try HeadlessChromium.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("audiogram.svg")
        try Data(renderer.document(plot).utf8).write(to: file)
        let g = renderer.geometry
        let image = try HeadlessChromium.screenshot(file, width: Int(g.width), height: Int(g.height))
        #expect(image.width == Int(g.width) && image.height == Int(g.height))

        // The circle: red on its ring (radius 7 ± 1.25), the centre left white.
        let circle = g.point(hz: 1000, db: 20)
        var ring = 0
        for step in 0..<16 {
            let angle = Double(step) / 16 * 2 * .pi
            if let p = image.pixel(x: Int((circle.x + 7 * cos(angle)).rounded()), y: Int((circle.y + 7 * sin(angle)).rounded())),
               RGBImage.isRed(p) { ring += 1 }
        }
        #expect(ring >= 12, "red on \(ring) of 16 points of the right ear's circle")
        #expect(image.count(near: circle.x, circle.y, radius: 2, where: RGBImage.isRed) == 0, "the circle is open")
        #expect(image.count(near: circle.x, circle.y, radius: 9, where: RGBImage.isBlue) == 0)

        // The cross: blue where its strokes meet, and along both diagonals.
        let cross = g.point(hz: 2000, db: 70)
        #expect(image.count(near: cross.x, cross.y, radius: 1, where: RGBImage.isBlue) >= 4)
        for (dx, dy) in [(-4.0, -4.0), (4, 4), (4, -4), (-4, 4)] {
            #expect(image.count(near: cross.x + dx, cross.y + dy, radius: 1, where: RGBImage.isBlue) >= 2, "diagonal at \(dx),\(dy)")
        }
        #expect(image.count(near: cross.x, cross.y, radius: 9, where: RGBImage.isRed) == 0)

        // Nothing is drawn at 4000 Hz, 110 dB.
        let empty = g.point(hz: 4000, db: 110)
        #expect(image.count(near: empty.x, empty.y, radius: 8, where: { RGBImage.isRed($0) || RGBImage.isBlue($0) }) == 0)
        // The picture is not blank: the dark frame at the plot's corner.
        #expect(image.count(near: g.plotLeft, g.plotBottom, radius: 1, where: { $0.r < 170 && $0.g < 170 && $0.b < 170 }) >= 2)
    }

    @Test("one ear alone: in Chromium red on the right ear's circle and its line, no blue anywhere in the plot; the legend names that ear only",
          .timeLimit(.minutes(10)))
    func oneEarInChromium() throws {
        let plot = Self.plot().only(.right, title: "Audiogram, right ear")
        let renderer = AudiogramSVG(fitting: plot)
        let svg = renderer.document(plot)
        let collector = Collector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        #expect(parser.parse())
        #expect(collector.elements.filter { $0.attributes["class"] == "right-ear" }.count == 4)  // 3 points + legend
        #expect(!collector.elements.contains { $0.attributes["class"] == "left-ear" })
        #expect(collector.elements.filter { $0.name == "polyline" }.count == 1)
        #expect(!collector.text.contains("left ear") && collector.text.contains("right ear"))
        #expect(!collector.elements.contains { $0.attributes["class"] == "tinnitus-mark" && $0.attributes["stroke"] == AudiogramSVG.leftColor })

        let directory = try HeadlessChromium.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("right.svg")
        try Data(svg.utf8).write(to: file)
        let g = renderer.geometry
        let image = try HeadlessChromium.screenshot(file, width: Int(g.width), height: Int(g.height))
        let circle = g.point(hz: 1000, db: 20)
        #expect(image.count(near: circle.x + 7, circle.y, radius: 1, where: RGBImage.isRed) >= 1)
        // Where the left ear's cross and its line would be, nothing blue; and nothing blue in the plot at all.
        let cross = g.point(hz: 2000, db: 70)
        #expect(image.count(near: cross.x, cross.y, radius: 9, where: RGBImage.isBlue) == 0)
        var blue = 0
        for x in stride(from: Int(g.plotLeft), to: Int(g.plotRight), by: 2) {
            for y in stride(from: Int(g.plotTop), to: Int(g.plotBottom), by: 2) {
                if let pixel = image.pixel(x: x, y: y), RGBImage.isBlue(pixel) { blue += 1 }
            }
        }
        #expect(blue == 0, "\(blue) blue pixels in a picture of the right ear")
    }
}
