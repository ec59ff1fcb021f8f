import Foundation
import UNITIProtocol

/// A value per UTC day over the last ``days`` days as an SVG the server draws into the page (no
/// script, so the console's CSP holds): bars, and optionally a line on the same scale (a running
/// total), scaled to the highest value or to a fixed top (a rate's 100 %).
///
/// The console's overview draws its three charts with it. The client's chart code
/// (`UNITICore/Charts`, ``SVGChart`` there) is not linked into the server: it needs the client's
/// localization and errors, so the server keeps this one small chart of its own.
struct DayChart: Sendable {
    static let days = 30
    static let barWidth = 20
    static let height = 100
    /// The element id and the accessible name (also the heading).
    var id: String
    var label: String
    var bars: [Bar]
    /// The line's points (`x,y x,y …`), empty for none.
    var line: String
    var hasLine: Bool
    /// Stored, not computed: the templates read values by reflection, which sees stored ones only.
    var width = Self.days * Self.barWidth
    var viewHeight = Self.height + 20
    var first: String
    var last: String
    /// The top of the scale as text ("12", "100 %").
    var maximum: String

    struct Bar: Sendable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var day: String
        var value: String
    }

    /// The chart of the `days` UTC days up to `today`'s from values by day number (seconds since
    /// 1970 / 86,400); days without a value get no bar. `top` fixes the scale's top (else the
    /// highest bar or line value); `format` writes a value.
    init(id: String, label: String, bars byDay: [Int: Double], line: [Int: Double] = [:], today: Date, top: Double? = nil,
         format: (Double) -> String = { String(Int($0.rounded())) }) {
        let last = Self.day(today)
        let range = (last - Self.days + 1)...last
        let highest = range.flatMap { [byDay[$0] ?? 0, line[$0] ?? 0] }.max() ?? 0
        let scale = top ?? max(highest, 1)
        func y(_ value: Double) -> Int { Self.height - Int((value / scale * Double(Self.height)).rounded()) }
        bars = range.enumerated().compactMap { index, day in
            guard let value = byDay[day] else { return nil }
            let height = max(1, Self.height - y(value))
            return Bar(x: index * Self.barWidth + 2, y: Self.height - height, width: Self.barWidth - 4, height: height,
                       day: Self.label(day), value: format(value))
        }
        self.line = range.enumerated().compactMap { index, day in
            line[day].map { "\(index * Self.barWidth + Self.barWidth / 2),\(y($0))" }
        }.joined(separator: " ")
        hasLine = !self.line.isEmpty
        self.id = id
        self.label = label
        first = Self.label(range.lowerBound)
        self.last = Self.label(last)
        maximum = format(scale)
    }

    /// The UTC day number of `date`.
    static func day(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    static func label(_ day: Int) -> String { String(Timestamps.format(Date(timeIntervalSince1970: Double(day) * 86_400)).prefix(10)) }
}
