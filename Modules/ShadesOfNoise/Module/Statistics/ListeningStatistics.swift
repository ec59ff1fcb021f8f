import Foundation

/// The two statistics of the thesis (FA11–FA13, 6.3): the sessions heard last, and per sound
/// the number of plays, the number of ratings, the mean rating and the total listening time.
///
/// The mean counts the answers 1–7 only; declined and timed-out ratings count as plays but not
/// as ratings. Lower is better (1 = very much better).
public struct ListeningStatistics: Sendable {
    public struct SoundSummary: Codable, Sendable, Hashable {
        public let sound: String
        public let title: String
        public let plays: Int
        public let ratings: Int
        public let meanRating: Double?
        public let listenedSeconds: Double
    }

    public enum Order: String, Sendable, CaseIterable {
        case name, plays, rating, time
    }

    public let perSound: [SoundSummary]

    /// - Parameters:
    ///   - sessions: every stored session.
    ///   - catalogue: sound ids with their titles, in catalogue order; sounds never played are
    ///     listed with zero plays (FA13 shows every sound), sounds no longer in the catalogue
    ///     keep their id as title.
    public init(sessions: [ListeningSession], catalogue: [(id: String, title: String)]) {
        var titles: [String: String] = [:]
        var order: [String] = []
        for entry in catalogue where titles[entry.id] == nil {
            titles[entry.id] = entry.title
            order.append(entry.id)
        }
        for session in sessions where titles[session.sound] == nil {
            titles[session.sound] = session.sound
            order.append(session.sound)
        }
        let grouped = Dictionary(grouping: sessions, by: \.sound)
        perSound = order.map { id in
            let list = grouped[id] ?? []
            let ratings = list.compactMap(\.rating)
            return SoundSummary(
                sound: id, title: titles[id] ?? id, plays: list.count, ratings: ratings.count,
                meanRating: ratings.isEmpty ? nil : Double(ratings.reduce(0, +)) / Double(ratings.count),
                listenedSeconds: list.reduce(0) { $0 + $1.listenedSeconds })
        }
    }

    /// The per-sound rows in an order: name A–Z, most plays, best (lowest) mean rating with
    /// unrated sounds last, or most listening time; ties by name.
    public func sorted(by order: Order) -> [SoundSummary] {
        perSound.sorted { a, b in
            let byName = a.title.localizedCaseInsensitiveCompare(b.title) == .orderedAscending
            switch order {
            case .name: return byName
            case .plays: return a.plays != b.plays ? a.plays > b.plays : byName
            case .time: return a.listenedSeconds != b.listenedSeconds ? a.listenedSeconds > b.listenedSeconds : byName
            case .rating:
                switch (a.meanRating, b.meanRating) {
                case let (x?, y?): return x != y ? x < y : byName
                case (_?, nil): return true
                case (nil, _?): return false
                case (nil, nil): return byName
                }
            }
        }
    }
}
