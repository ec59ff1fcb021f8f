import Foundation
import Synchronization

/// The means of settled periods, kept in the server process's memory (PostgreSQL store).
///
/// A period is **settled** when its `to` lies at or before the last midnight that began at least
/// ``ComparisonSums/settling`` ago (``ComparisonSums/isSettled(to:now:)``). Every answer that can
/// still change such a period started before a UTC day that has begun on every server's clock:
/// storing it is a late upload, which raises the item's version in its own transaction. The
/// other change, a membership that makes someone count or stop counting, raises the version of
/// each item the person has sums for, also in its own transaction (`setMembership`); so does a
/// rebuild of the sums. So while the item's version stands, a settled period's means stand too:
/// a request then reads only the version (one index lookup) and answers from here, where the
/// period would otherwise join the totals, two day snapshots and two partial days of every
/// participant (about 33 ms at 10,000 participants on PostgreSQL).
///
/// Each process keeps its own copy and checks the version in the database on every use, so
/// several processes on one database never answer from a stale one. An entry holds every
/// participant's mean (the requester's own mean and rank come from the same numbers as
/// everyone's, as in the statement that built it); the least recently used entries give way
/// when the means held exceed ``capacity``.
final class ComparisonPeriodCache: Sendable {
    struct Key: Hashable, Sendable {
        var questionnaireId: String
        var studyId: String
        var label: String
        var from: Double?
        var to: Double
    }

    /// One period's means, as read in one statement at the item's `version`.
    struct Period: Sendable {
        let version: Int64
        /// Participants in ascending order, each with the mean at the same index.
        let userIds: [Int64]
        let means: [Double]
        /// The means in ascending order: a participant's rank by two binary searches.
        let ascending: [Double]
        let sumOfMeans: Double

        init(version: Int64, userIds: [Int64], means: [Double]) {
            precondition(userIds.count == means.count, "one mean per participant")
            let order = userIds.indices.sorted { userIds[$0] < userIds[$1] }
            self.version = version
            self.userIds = order.map { userIds[$0] }
            self.means = order.map { means[$0] }
            ascending = means.sorted()
            sumOfMeans = self.means.reduce(0, +)
        }

        var byParticipant: [Int64: Double] {
            Dictionary(uniqueKeysWithValues: zip(userIds, means))
        }

        func mean(of userId: Int64) -> Double? {
            let index = Self.firstIndex(in: userIds) { $0 < userId }
            return index < userIds.count && userIds[index] == userId ? means[index] : nil
        }

        func figures(for userId: Int64) -> ComparisonFigures {
            guard let own = mean(of: userId) else {
                return ComparisonFigures(participants: means.count, sumOfMeans: sumOfMeans, ownMean: nil, below: 0, equal: 0)
            }
            let below = Self.firstIndex(in: ascending) { $0 < own }
            let notAbove = Self.firstIndex(in: ascending) { $0 <= own }
            return ComparisonFigures(participants: means.count, sumOfMeans: sumOfMeans, ownMean: own, below: below, equal: notAbove - below)
        }

        /// The first index of `sorted` whose element does not satisfy `isBefore` (which holds
        /// for a prefix of it).
        private static func firstIndex<Element>(in sorted: [Element], where isBefore: (Element) -> Bool) -> Int {
            var (low, high) = (0, sorted.count)
            while low < high {
                let middle = (low + high) / 2
                if isBefore(sorted[middle]) { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    private struct State {
        var entries: [Key: (period: Period, used: UInt64)] = [:]
        var clock: UInt64 = 0
        var held = 0
    }

    /// How many means all entries together may hold (8 bytes each, three times: about 24 MB at
    /// the default, 100 periods of 10,000 participants).
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 1_000_000) {
        self.capacity = capacity
    }

    /// The period kept for `key`, whatever its version (the caller compares it with the
    /// item's current version before using it).
    func period(_ key: Key) -> Period? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key]?.used = state.clock
            return entry.period
        }
    }

    /// Keeps `period` for `key`, unless a newer version of it is kept already; the least
    /// recently used entries make room.
    func keep(_ period: Period, for key: Key) {
        guard period.means.count <= capacity else { return }
        state.withLock { state in
            if let kept = state.entries[key] {
                guard kept.period.version < period.version else { return }
                state.held -= kept.period.means.count
            }
            state.clock += 1
            state.entries[key] = (period, state.clock)
            state.held += period.means.count
            while state.held > capacity, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
                state.held -= oldest.value.period.means.count
            }
        }
    }

    /// Forgets every period (tests that change the sums behind the store's back).
    func removeAll() {
        state.withLock { $0 = State() }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
