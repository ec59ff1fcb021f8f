import Foundation

/// One axis of a chart: its scale, its range, how its values are written, and where its ticks go.
///
/// Shared by the terminal and the SVG renderer so both label a chart alike. Logarithmic axes
/// serve audiograms (frequency 125 Hz – 8 kHz, Tinnitus Navigator); date axes serve every
/// time series of the modules. A reversed axis runs from `upper` to `lower`: an audiogram's
/// hearing level grows downwards (−10 dB HL at the top, 120 at the bottom), by clinical
/// convention, so worse hearing lies lower.
public struct ChartAxis: Sendable {
    public enum Scale: Sendable, Equatable {
        case linear
        /// Base-10 logarithmic; values ≤ 0 cannot be shown and are left out.
        case logarithmic
    }

    public enum Format: Sendable {
        /// Plain numbers, shortened (1.5k, 2M).
        case number
        /// Instants (seconds since 1970) as dates or times in a zone.
        case date(TimeZone)
        /// Frequencies: 125 Hz, 1 kHz, 8 kHz.
        case hertz
    }

    public let scale: Scale
    public let lower: Double
    public let upper: Double
    public let format: Format
    /// Ticks chosen by the caller (e.g. the audiometric frequencies); nil chooses them.
    public let fixedTicks: [Double]?
    /// The axis title, shown by the SVG renderer.
    public let title: String?
    /// Whether `upper` lies at the start of the axis (top, or left) and `lower` at its end.
    public let reversed: Bool

    /// - Throws: when the range is empty or, for a logarithmic axis, not positive.
    public init(scale: Scale = .linear, lower: Double, upper: Double, format: Format = .number,
                ticks: [Double]? = nil, title: String? = nil, reversed: Bool = false) throws {
        guard lower.isFinite, upper.isFinite, lower < upper else {
            throw UNITIError(L("charts.error.range", ["lower": "\(lower)", "upper": "\(upper)"]))
        }
        if scale == .logarithmic, lower <= 0 {
            throw UNITIError(L("charts.error.logRange", ["lower": "\(lower)"]))
        }
        self.scale = scale
        self.lower = lower
        self.upper = upper
        self.format = format
        self.fixedTicks = ticks
        self.title = title
        self.reversed = reversed
    }

    /// An axis spanning the x (or y) values of `series`, widened a little when all are equal.
    public static func fitting(_ series: [ChartSeries], vertical: Bool, scale: Scale = .linear,
                               format: Format = .number, includeZero: Bool = false, title: String? = nil) throws -> ChartAxis {
        var low = Double.infinity
        var high = -Double.infinity
        for s in series {
            for p in s.points {
                let v = vertical ? p.y : p.x
                guard v.isFinite, scale == .linear || v > 0 else { continue }
                low = min(low, v)
                high = max(high, v)
            }
        }
        guard low.isFinite else { throw UNITIError(L("charts.error.noData")) }
        if includeZero, scale == .linear { low = min(low, 0); high = max(high, 0) }
        if low == high {
            if scale == .logarithmic { low /= 2; high *= 2 } else { low -= 1; high += 1 }
        }
        return try ChartAxis(scale: scale, lower: low, upper: high, format: format, title: title)
    }

    /// Where `value` lies along the axis, 0 at its start (the bottom or the left) and 1 at its
    /// end: 0 at `lower` and 1 at `upper`, or the other way round for a ``reversed`` axis
    /// (outside for values out of range; nil for values a logarithmic axis cannot show).
    public func position(of value: Double) -> Double? {
        let fraction: Double
        switch scale {
        case .linear:
            fraction = (value - lower) / (upper - lower)
        case .logarithmic:
            guard value > 0 else { return nil }
            fraction = (log10(value) - log10(lower)) / (log10(upper) - log10(lower))
        }
        return reversed ? 1 - fraction : fraction
    }

    /// Tick values inside the range, at most about `maximum` of them.
    public func ticks(maximum: Int) -> [Double] {
        if let fixedTicks { return fixedTicks.filter { $0 >= lower && $0 <= upper } }
        switch (scale, format) {
        case (.logarithmic, _):
            return logTicks(maximum: maximum)
        case (.linear, .date(let zone)):
            return dateTicks(maximum: maximum, zone: zone)
        default:
            return linearTicks(maximum: maximum)
        }
    }

    /// Nice steps: 1, 2 or 5 times a power of ten.
    func linearTicks(maximum: Int) -> [Double] {
        let span = upper - lower
        let rough = span / Double(max(maximum - 1, 1))
        let magnitude = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        var ticks: [Double] = []
        var value = ceil(lower / step) * step
        while value <= upper + step * 1e-9 {
            ticks.append(abs(value) < step * 1e-9 ? 0 : value)
            value += step
        }
        return ticks
    }

    /// Powers of ten; with few decades also 2× and 5×; with one octave-spaced range (such as
    /// 125–8000) the doublings from `lower`.
    func logTicks(maximum: Int) -> [Double] {
        let first = Int(floor(log10(lower)))
        let last = Int(ceil(log10(upper)))
        var multipliers: [Double] = [1]
        if last - first <= 2 { multipliers = [1, 2, 5] }
        var ticks: [Double] = []
        for exponent in first...last {
            for m in multipliers {
                let value = m * pow(10, Double(exponent))
                if value >= lower * (1 - 1e-9), value <= upper * (1 + 1e-9) { ticks.append(value) }
            }
        }
        if ticks.count > maximum {
            ticks = ticks.filter { log10($0).rounded() == log10($0) }
        }
        return ticks
    }

    /// Day-aligned ticks (midnight in the zone) every 1, 2, 7, 14, 30, 91 or 365 days; within a
    /// day or two, every 1, 3, 6 or 12 hours.
    func dateTicks(maximum: Int, zone: TimeZone) -> [Double] {
        let span = upper - lower
        let hourSteps: [Double] = [1, 3, 6, 12]
        if span <= 2 * 86_400, let hours = hourSteps.first(where: { span / ($0 * 3600) <= Double(maximum) }) {
            // Whole hours of the zone's wall clock.
            var ticks: [Double] = []
            let first = LocalDate(Date(timeIntervalSince1970: lower), in: zone)
            for dayNumber in first.dayNumber...(first.dayNumber + 3) {
                for hour in stride(from: 0, to: 24, by: Int(hours)) {
                    let instant = LocalDate(dayNumber: dayNumber).instant(at: TimeOfDay(hour: hour, minute: 0), in: zone)
                        .timeIntervalSince1970
                    if instant >= lower, instant <= upper, ticks.last.map({ instant > $0 }) ?? true { ticks.append(instant) }
                }
            }
            return ticks
        }
        // Steps in days, with the mean length of months, quarters and years for the comparison.
        let daySteps: [(step: Int, length: Double)] = [(1, 1), (2, 2), (7, 7), (14, 14), (30, 30.44), (91, 91.31), (365, 365.25)]
        let days = span / 86_400
        let step = daySteps.first { days / $0.length <= Double(maximum) }?.step ?? 365
        var ticks: [Double] = []
        var date = LocalDate(Date(timeIntervalSince1970: lower), in: zone)
        if step >= 30 { date = date.startOfMonth }
        if step == 7 || step == 14 { date = date.startOfWeek }
        while true {
            let instant = date.startInstant(in: zone).timeIntervalSince1970
            if instant > upper { break }
            if instant >= lower { ticks.append(instant) }
            switch step {
            case 30: date = date.startOfNextMonth
            case 91: date = date.startOfNextMonth.startOfNextMonth.startOfNextMonth
            case 365: date = LocalDate(year: date.year + 1, month: 1, day: 1)
            default: date = date.adding(days: step)
            }
        }
        // Decades and more: every k-th year.
        if ticks.count > maximum {
            let k = (ticks.count + maximum - 1) / maximum
            ticks = stride(from: 0, to: ticks.count, by: k).map { ticks[$0] }
        }
        return ticks
    }

    /// The text of a tick.
    public func label(_ value: Double) -> String {
        switch format {
        case .number:
            return Self.compact(value)
        case .hertz:
            return value >= 1000 ? "\(Self.compact(value / 1000, plain: true)) kHz" : "\(Self.compact(value, plain: true)) Hz"
        case .date(let zone):
            let date = Date(timeIntervalSince1970: value)
            let day = LocalDate(date, in: zone)
            if upper - lower <= 2 * 86_400 { return TimeOfDay(localTimeOf: date, in: zone).description }
            let m = day.month < 10 ? "0\(day.month)" : "\(day.month)"
            let d = day.day < 10 ? "0\(day.day)" : "\(day.day)"
            if upper - lower > 400 * 86_400 { return "\(day.year)-\(m)" }
            return "\(m)-\(d)"
        }
    }

    /// Short numbers: 0.25, 3, 12.5, 1.5k, 2M (with a decimal comma where the language writes one).
    static func compact(_ value: Double, plain: Bool = false) -> String {
        let magnitude = abs(value)
        if !plain {
            if magnitude >= 1_000_000 { return compact(value / 1_000_000, plain: true) + "M" }
            if magnitude >= 10_000 { return compact(value / 1000, plain: true) + "k" }
        }
        if value == value.rounded() { return String(Int(value)) }
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text.replacingOccurrences(of: ".", with: CurrentLanguage.value.decimalSeparator)
    }
}
