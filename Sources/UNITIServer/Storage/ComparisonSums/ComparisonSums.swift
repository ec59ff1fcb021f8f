import Foundation
import UNITIProtocol

/// The running sums behind the comparison with all users (issue 16), kept up to date in the
/// transaction that stores a sheet, so that a comparison reads participants, not answers.
///
/// Per questionnaire item and participant:
/// - `comparison_totals`: the sum and count of the numeric answers, with the start of the first
///   and of the last sheet holding one;
/// - `comparison_running`: one row per such sheet, in the order of `(started_at, sheet_id)`,
///   holding the sum and count of the participant's answers up to and including that sheet.
///
/// A period `[from, to)` is then, per participant, the sum before `to` minus the sum before
/// `from`, each either nothing, the totals, or the running row of the last sheet started before
/// it (``Participant/needsLookup(before:)``). The means equal those of averaging the answers
/// themselves (``SheetStore/participantMeans``) for any period, to the second.
///
/// That running row is found one of two ways:
/// - a seek per participant (10,000 seeks at 10,000 participants: 40–190 ms);
/// - from a **day snapshot**: `comparison_snapshots` holds every participant's sum before the
///   start of one UTC day, and the sheets between that midnight and the bound come from a range
///   scan of the running rows by start (`comparison_running_time`). Both are read in participant
///   order and merged with the totals: range scans, no seek per participant.
///
/// Snapshots are built on first use, for a day that began at least ``settling`` ago, and tagged
/// with the item's version in `comparison_versions`. Storing a sheet started before the current
/// UTC day (a late upload) raises that version in the storing transaction, adds the answer to the
/// snapshots that were current and tags them with the new version. A snapshot built meanwhile
/// from rows that did not include the answer keeps the old version: stale, it is rebuilt on its
/// next use. A reader checks the versions in the same read as it reads the snapshot, so it never
/// reads a stale one. On PostgreSQL the version also rises when someone starts or stops counting
/// (a membership change) and on a rebuild: a settled period is then answered from memory while
/// the version stands (``SettledCache``).
enum ComparisonSums {
    static let secondsPerDay = 86_400.0
    /// How long after midnight a day's snapshot may be built. A sheet counts as late when it
    /// started before the storing server's current UTC day; a snapshot built this long after
    /// midnight has seen every sheet that was not late when stored, as long as server clocks
    /// differ, and uploads wait in queues, by less than this.
    static let settling = 3600.0
    /// Snapshots not built (or rebuilt) for this many days are dropped when another is built.
    static let snapshotLifetimeDays: Int64 = 7

    /// The UTC day (days since 1970) whose snapshot serves the bound `time`, when it may have one.
    static func snapshotDay(for time: Double, now: Date) -> Int64? {
        let day = (time / secondsPerDay).rounded(.down)
        guard day * secondsPerDay <= now.timeIntervalSince1970 - settling else { return nil }
        return Int64(day)
    }

    /// Whether the sums before `to` can change only by late answers: `to` lies at or before the
    /// last midnight that began at least ``settling`` before `now`. Every sheet started before it
    /// is late on any server whose clock is behind by less than that, and so raises the item's
    /// version when stored (``SettledCache``).
    static func isSettled(to: Double, now: Date) -> Bool {
        to <= dayStart(of: now.addingTimeInterval(-settling))
    }

    /// The start of the UTC day of `date`, in seconds since 1970: a sheet started before it is late.
    static func dayStart(of date: Date) -> Double {
        (date.timeIntervalSince1970 / secondsPerDay).rounded(.down) * secondsPerDay
    }

    /// The items (questionnaire, label) a batch stores late answers for, each with those answers:
    /// they change the item's snapshots.
    static func lateItems(_ entries: [Entry], receivedAt: Date) -> [(questionnaireId: String, label: String, entries: [Entry])] {
        let start = dayStart(of: receivedAt)
        var items: [(questionnaireId: String, label: String, entries: [Entry])] = []
        for entry in entries where entry.startedAt < start {
            if let index = items.firstIndex(where: { $0.questionnaireId == entry.questionnaireId && $0.label == entry.label }) {
                items[index].entries.append(entry)
            } else {
                items.append((entry.questionnaireId, entry.label, [entry]))
            }
        }
        return items
    }

    /// The two statements that fill both tables from every stored answer (the migrations and
    /// `maintenance rebuild-comparison`); the same SQL on both stores.
    static let fillSQL = fillSQL(totalsColumn: nil)

    /// ``fillSQL`` with one more column of the totals and its value, an SQL expression that may
    /// use `s.questionnaire_id` and `s.user_id` (PostgreSQL's `member`).
    static func fillSQL(totalsColumn extra: (name: String, value: String)?) -> String {
        """
        INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count, first_started, last_started\(extra.map { ", \($0.name)" } ?? ""))
        SELECT s.questionnaire_id, a.label, s.user_id, SUM(a.number), COUNT(*), MIN(s.started_at), MAX(s.started_at)\(extra.map { ", \($0.value)" } ?? "")
        FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
        WHERE a.number IS NOT NULL
        GROUP BY s.questionnaire_id, a.label, s.user_id;
        INSERT INTO comparison_running (questionnaire_id, label, user_id, started_at, sheet_id, total, count)
        SELECT s.questionnaire_id, a.label, s.user_id, s.started_at, s.id, SUM(a.number) OVER running, COUNT(*) OVER running
        FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
        WHERE a.number IS NOT NULL
        WINDOW running AS (PARTITION BY s.questionnaire_id, a.label, s.user_id ORDER BY s.started_at, s.id ROWS UNBOUNDED PRECEDING)
        """
    }

    /// SQL of the running row of the last sheet started before `bound` (an SQL expression), for
    /// the participant and item of the totals row `t`: one index seek. `condition` on `t` skips
    /// the seek where it is false.
    static func lastRunningRow(_ columns: String, before bound: String, if condition: String? = nil) -> String {
        """
        SELECT \(columns) FROM comparison_running r
        WHERE \(condition.map { "\($0) AND " } ?? "")r.user_id = t.user_id AND r.questionnaire_id = t.questionnaire_id
          AND r.label = t.label AND r.started_at < \(bound)
        ORDER BY r.started_at DESC, r.sheet_id DESC LIMIT 1
        """
    }

    /// One numeric answer of a sheet just stored: what it adds to the sums.
    struct Entry: Equatable {
        var questionnaireId: String
        var label: String
        var startedAt: Double
        /// The store's own id of the sheet: the order of two sheets started in the same instant.
        var sheetId: Int64
        var number: Double

        /// The order of the running rows of one participant and item.
        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            (a.questionnaireId, a.label, a.startedAt, a.sheetId) < (b.questionnaireId, b.label, b.startedAt, b.sheetId)
        }
    }

    /// The numeric answers of the sheets actually stored (not duplicates), in running order.
    static func entries(of stored: [(sheetId: Int64, sheet: AnswerSheet)]) -> [Entry] {
        stored.flatMap { sheetId, sheet in
            sheet.answers.compactMap { label, answer in
                answer.value.number.map {
                    Entry(questionnaireId: sheet.questionnaireID, label: label, startedAt: sheet.startedAt.date.timeIntervalSince1970,
                          sheetId: sheetId, number: $0)
                }
            }
        }.sorted(by: Entry.precedes)
    }

    /// A sum and count of answers.
    struct Sum: Equatable {
        var total: Double
        var count: Int64
        static let zero = Sum(total: 0, count: 0)
    }

    /// A participant's totals row for one item.
    struct Participant {
        var userId: Int64
        var totals: Sum
        var firstStarted: Double
        var lastStarted: Double

        /// Whether the sum of the sheets started before `time` must be looked up in the running
        /// rows: some but not all of the participant's sheets started before it.
        func needsLookup(before time: Double?) -> Bool {
            guard let time else { return false }
            return firstStarted < time && time <= lastStarted
        }

        /// The sum of the sheets started before `time` (nil: an open bound, `open`), given the
        /// running row looked up when ``needsLookup(before:)`` says so.
        func sum(before time: Double?, open: Sum, lookedUp: Sum?) -> Sum {
            guard let time else { return open }
            if needsLookup(before: time) { return lookedUp ?? .zero }
            return time <= firstStarted ? .zero : totals
        }

        /// The participant's mean in `[from, to)`; nil without an answer in it.
        func mean(from: Double?, to: Double?, lookedUpBeforeTo lookedUpTo: Sum?, lookedUpBeforeFrom lookedUpFrom: Sum?) -> Double? {
            let upper = sum(before: to, open: totals, lookedUp: lookedUpTo)
            let lower = sum(before: from, open: .zero, lookedUp: lookedUpFrom)
            let count = upper.count - lower.count
            guard count > 0 else { return nil }
            return (upper.total - lower.total) / Double(count)
        }
    }

    /// Rows read in ascending participant order (a study's members, a snapshot, the last running
    /// row per participant in a range of starts), looked up in that order: a merge, where a join
    /// would seek once per participant.
    struct SortedRows<Value> {
        private let next: () throws -> (userId: Int64, value: Value)?
        private var current: (userId: Int64, value: Value)?
        private var started = false

        init(_ next: @escaping () throws -> (userId: Int64, value: Value)?) {
            self.next = next
        }

        mutating func value(for userId: Int64) throws -> Value? {
            if !started {
                current = try next()
                started = true
            }
            while let row = current, row.userId < userId { current = try next() }
            guard let row = current, row.userId == userId else { return nil }
            return row.value
        }
    }
    typealias SortedSums = SortedRows<Sum>

    /// A bound's sum from a day snapshot: the participant's last running row between the day's
    /// midnight and the bound, else the snapshot's sum at midnight, else nothing.
    struct SnapshotBound {
        var partial: SortedSums
        var snapshot: SortedSums

        mutating func sum(for userId: Int64) throws -> Sum {
            if let last = try partial.value(for: userId) { return last }
            return try snapshot.value(for: userId) ?? .zero
        }
    }

    /// Collects the means of the participants with answers in the period `[from, to)`.
    struct Means {
        let from: Double?
        let to: Double?
        private(set) var means: [Int64: Double] = [:]

        init(from: Date?, to: Date?) {
            self.from = from?.timeIntervalSince1970
            self.to = to?.timeIntervalSince1970
        }

        /// Whether the period holds no instant at all: nothing to read.
        var periodIsEmpty: Bool {
            guard let from, let to else { return false }
            return to <= from
        }

        mutating func add(_ participant: Participant, beforeTo: Sum?, beforeFrom: Sum?) {
            if let mean = participant.mean(from: from, to: to, lookedUpBeforeTo: beforeTo, lookedUpBeforeFrom: beforeFrom) {
                means[participant.userId] = mean
            }
        }
    }
}
