import ArgumentParser
import Foundation

/// Ways to make a long series (40,000 points of a year of momentary assessments) fit a chart.
/// The caller chooses: thinning keeps real points, aggregation summarizes them.
public enum SeriesReduction {
    /// Every `k`-th point, and always the last, so the line still reaches the end.
    public static func everyKth(_ points: [ChartPoint], k: Int) -> [ChartPoint] {
        guard k > 1, points.count > 2 else { return points }
        var kept = stride(from: 0, to: points.count, by: k).map { points[$0] }
        if (points.count - 1) % k != 0 { kept.append(points[points.count - 1]) }
        return kept
    }

    /// At most two points per column of a chart `columns` wide: the lowest and the highest of the
    /// points falling into it, in x order, so peaks and dips survive (the usual way to draw a long
    /// signal on few pixels). Points must be sorted by x.
    public static func minMaxPerColumn(_ points: [ChartPoint], columns: Int) -> [ChartPoint] {
        guard columns > 0, points.count > 2 * columns, let first = points.first, let last = points.last,
              last.x > first.x else { return points }
        let width = (last.x - first.x) / Double(columns)
        var result: [ChartPoint] = []
        result.reserveCapacity(2 * columns)
        var index = 0
        for column in 0..<columns {
            let end = column == columns - 1 ? Double.infinity : first.x + width * Double(column + 1)
            var low: ChartPoint?
            var high: ChartPoint?
            while index < points.count, points[index].x < end {
                let p = points[index]
                if low == nil || p.y < low!.y { low = p }
                if high == nil || p.y > high!.y { high = p }
                index += 1
            }
            guard let low, let high else { continue }
            if low == high { result.append(low) } else { result += low.x <= high.x ? [low, high] : [high, low] }
        }
        return result
    }

    /// The span one aggregate covers.
    public enum Period: String, Sendable, CaseIterable {
        case day, week, month
    }

    /// One period's summary: mean, lowest and highest value, number of values.
    public struct Aggregate: Sendable, Hashable {
        public let start: Date
        public let mean: Double
        public let minimum: Double
        public let maximum: Double
        public let count: Int
    }

    /// Mean and range per local day, ISO week (Monday first) or calendar month in `timeZone`; x of the points is
    /// seconds since 1970. Periods without values are left out.
    public static func aggregate(_ points: [ChartPoint], by period: Period, in timeZone: TimeZone) -> [Aggregate] {
        var buckets: [Int: (sum: Double, min: Double, max: Double, count: Int)] = [:]
        for p in points where p.y.isFinite {
            var day = LocalDate(Date(timeIntervalSince1970: p.x), in: timeZone)
            switch period {
            case .day: break
            case .week: day = day.startOfWeek
            case .month: day = day.startOfMonth
            }
            let key = day.dayNumber
            if let b = buckets[key] {
                buckets[key] = (b.sum + p.y, min(b.min, p.y), max(b.max, p.y), b.count + 1)
            } else {
                buckets[key] = (p.y, p.y, p.y, 1)
            }
        }
        return buckets.keys.sorted().map { key in
            let b = buckets[key]!
            return Aggregate(start: LocalDate(dayNumber: key).startInstant(in: timeZone),
                             mean: b.sum / Double(b.count), minimum: b.min, maximum: b.max, count: b.count)
        }
    }

    /// Aggregates as three series: mean, minimum and maximum (the range drawn around the mean).
    public static func series(_ aggregates: [Aggregate], name: String, rangeNames: (String, String)) -> [ChartSeries] {
        [
            ChartSeries(name: name, points: aggregates.map { ChartPoint(x: $0.start.timeIntervalSince1970, y: $0.mean) }),
            ChartSeries(name: rangeNames.0, points: aggregates.map { ChartPoint(x: $0.start.timeIntervalSince1970, y: $0.minimum) }, style: .points),
            ChartSeries(name: rangeNames.1, points: aggregates.map { ChartPoint(x: $0.start.timeIntervalSince1970, y: $0.maximum) }, style: .points),
        ]
    }
}

/// `--by day|week|month` (in any case) for commands that chart a series by period.
extension SeriesReduction.Period: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }
}
