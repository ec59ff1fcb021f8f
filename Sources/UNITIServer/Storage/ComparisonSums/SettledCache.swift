import Foundation
import Synchronization

/// What the comparison keeps of settled periods and bounds in the server process's memory
/// (PostgreSQL store).
///
/// A period is **settled** when its `to` lies at or before the last midnight that began at least
/// ``ComparisonSums/settling`` ago (``ComparisonSums/isSettled(to:now:)``); so is a bound there.
/// Every answer that can still change such a period, or the sums before such a bound, started
/// before a UTC day that has begun on every server's clock: storing it is a late upload, which
/// raises the item's version in its own transaction. The other change, a membership that makes
/// someone count or stop counting, raises the version of each item the person has sums for,
/// also in its own transaction (`setMembership`); so does a rebuild of the sums. So while the
/// item's version stands, what was read at it stands too:
/// - a settled period's means (``SettledPeriod``): a request reads only the version (one index
///   lookup) and answers from here, where the period would otherwise join the totals, two day
///   snapshots and two partial days of every participant (about 33 ms at 10,000 participants);
/// - the sums before a settled `from` (``SettledBound``): a period open to now (what `tys
///   results` asks) reads only the totals, with the version in the same statement, and
///   subtracts these, where it would otherwise join a day snapshot and a partial day.
///
/// Each process keeps its own copy and checks the version in the database on every use, so
/// several processes on one database never answer from a stale one. The least recently used
/// entries give way when the participants held exceed ``capacity``.
protocol SettledSums: Sendable {
    /// The item's version the sums were read at.
    var version: Int64 { get }
    /// How many participants they hold (the room they take).
    var participants: Int { get }
}

/// What a settled period or bound is kept by: `to` nil for a bound (`from`).
struct SettledKey: Hashable, Sendable {
    var questionnaireId: String
    var studyId: String
    var label: String
    var from: Double?
    var to: Double?
}

/// One settled period's means, as read in one statement at the item's `version`. The figures
/// of one participant are a pass over them (10,000 means: microseconds), as when they are read.
struct SettledPeriod: SettledSums {
    let version: Int64
    /// Participants, each with the mean at the same index.
    let userIds: [Int64]
    let means: [Double]

    init(version: Int64, userIds: [Int64], means: [Double]) {
        precondition(userIds.count == means.count, "one mean per participant")
        self.version = version
        self.userIds = userIds
        self.means = means
    }

    var participants: Int { userIds.count }

    var byParticipant: [Int64: Double] {
        Dictionary(uniqueKeysWithValues: zip(userIds, means))
    }

    func figures(for userId: Int64) -> ComparisonFigures {
        ComparisonFigures(userIds: userIds, means: means, userId: userId)
    }
}

/// Every current member's sum and count of the answers started before one settled bound, as
/// read in one statement at the item's `version`. A member without an entry has none before it:
/// someone with a sheet before it who became a member, or whose first such sheet came in, since
/// then raised the version.
struct SettledBound: SettledSums {
    let version: Int64
    /// Participants in ascending order, each with the sum and count at the same index.
    let userIds: [Int64]
    let totals: [Double]
    let counts: [Int64]

    /// Keeps the participants with answers before the bound (the others need no room).
    init(version: Int64, userIds: [Int64], totals: [Double], counts: [Int64]) {
        precondition(userIds.count == totals.count && userIds.count == counts.count, "one sum per participant")
        let order = userIds.indices.filter { counts[$0] != 0 }.sorted { userIds[$0] < userIds[$1] }
        self.version = version
        self.userIds = order.map { userIds[$0] }
        self.totals = order.map { totals[$0] }
        self.counts = order.map { counts[$0] }
    }

    var participants: Int { userIds.count }

    /// The participant's sum before the bound (a binary search).
    func sum(of userId: Int64) -> ComparisonSums.Sum {
        var (low, high) = (0, userIds.count)
        while low < high {
            let middle = (low + high) / 2
            if userIds[middle] < userId { low = middle + 1 } else { high = middle }
        }
        let index = low
        guard index < userIds.count, userIds[index] == userId else { return .zero }
        return ComparisonSums.Sum(total: totals[index], count: counts[index])
    }

    /// Each participant's mean since the bound, from the participants' totals: the same
    /// subtraction and division as the statement's (`total - lower`, then `total / count`).
    func means(totals: (userIds: [Int64], totals: [Double], counts: [Int64])) -> (userIds: [Int64], means: [Double]) {
        var result: (userIds: [Int64], means: [Double]) = ([], [])
        result.userIds.reserveCapacity(totals.userIds.count)
        result.means.reserveCapacity(totals.userIds.count)
        for index in totals.userIds.indices {
            let before = sum(of: totals.userIds[index])
            let count = totals.counts[index] - before.count
            guard count > 0 else { continue }
            result.userIds.append(totals.userIds[index])
            result.means.append((totals.totals[index] - before.total) / Double(count))
        }
        return result
    }
}

/// Settled periods or bounds by ``SettledKey``, each valid while its item's version stands.
final class SettledCache<Value: SettledSums>: Sendable {
    private struct State {
        var entries: [SettledKey: (value: Value, used: UInt64)] = [:]
        var clock: UInt64 = 0
        var held = 0
    }

    /// How many participants all entries together may hold (at the default, 100 periods of
    /// 10,000 participants: about 16 MB of means, or 24 MB of bounds' sums).
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 1_000_000) {
        self.capacity = capacity
    }

    /// The entry kept for `key`, whatever its version (the caller compares it with the item's
    /// current version before using it).
    func value(_ key: SettledKey) -> Value? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key]?.used = state.clock
            return entry.value
        }
    }

    /// Keeps `value` for `key`, unless a newer version of it is kept already; the least recently
    /// used entries make room.
    func keep(_ value: Value, for key: SettledKey) {
        guard value.participants <= capacity else { return }
        state.withLock { state in
            if let kept = state.entries[key] {
                guard kept.value.version < value.version else { return }
                state.held -= kept.value.participants
            }
            state.clock += 1
            state.entries[key] = (value, state.clock)
            state.held += value.participants
            while state.held > capacity, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
                state.held -= oldest.value.value.participants
            }
        }
    }

    /// Forgets everything kept (tests that change the sums behind the store's back).
    func removeAll() {
        state.withLock { $0 = State() }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
