import Foundation

/// How hearing changed from one audiogram to a later one (thesis FR11: "the results of
/// therapies can only be measured with audiometry"): per frequency and ear the threshold
/// before, after and the change in dB (positive: the ear hears worse), and the change of each
/// ear's pure-tone average.
public struct AudiogramComparison: Codable, Sendable, Hashable {
    /// One frequency of either audiogram.
    public struct Row: Codable, Sendable, Hashable {
        public var hz: Int
        public var left: Change
        public var right: Change
    }

    /// One ear at one frequency; `change` only when both thresholds are known.
    public struct Change: Codable, Sendable, Hashable {
        public var before: Int?
        public var after: Int?
        public var change: Int? {
            guard let before, let after else { return nil }
            return after - before
        }

        enum CodingKeys: String, CodingKey { case before, after, change }

        public init(before: Int?, after: Int?) {
            self.before = before
            self.after = after
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            before = try c.decodeIfPresent(Int.self, forKey: .before)
            after = try c.decodeIfPresent(Int.self, forKey: .after)
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(before, forKey: .before)
            try c.encodeIfPresent(after, forKey: .after)
            try c.encodeIfPresent(change, forKey: .change)
        }
    }

    /// The earlier audiogram's id and date.
    public var beforeID: String
    public var beforeDate: String
    /// The later audiogram's id and date.
    public var afterID: String
    public var afterDate: String
    /// Every frequency of either audiogram, ascending.
    public var rows: [Row]
    /// The change of each ear's pure-tone average (dB), when both averages are known.
    public var ptaChangeLeft: Double?
    public var ptaChangeRight: Double?

    /// Compares two audiograms, whichever order they are given in: the one measured earlier
    /// (by date, then by entry) is "before".
    public init(_ a: Audiogram, _ b: Audiogram) {
        let (before, after) = (a.date, a.createdAt) <= (b.date, b.createdAt) ? (a, b) : (b, a)
        beforeID = before.id
        beforeDate = before.date
        afterID = after.id
        afterDate = after.date
        let frequencies = Set(before.thresholds.map(\.hz)).union(after.thresholds.map(\.hz)).sorted()
        rows = frequencies.map { hz in
            Row(hz: hz,
                left: Change(before: before.threshold(.left, at: hz), after: after.threshold(.left, at: hz)),
                right: Change(before: before.threshold(.right, at: hz), after: after.threshold(.right, at: hz)))
        }
        func ptaChange(_ ear: Ear) -> Double? {
            guard let old = PureToneAverage.of(before, ear: ear), let new = PureToneAverage.of(after, ear: ear) else { return nil }
            return new - old
        }
        ptaChangeLeft = ptaChange(.left)
        ptaChangeRight = ptaChange(.right)
    }

    /// The audiogram measured just before `audiogram` among `all` (by date, then by entry), or nil.
    public static func previous(of audiogram: Audiogram, among all: [Audiogram]) -> Audiogram? {
        all.filter { $0.id != audiogram.id && ($0.date, $0.createdAt) < (audiogram.date, audiogram.createdAt) }
            .max { ($0.date, $0.createdAt) < ($1.date, $1.createdAt) }
    }
}
