import Foundation
import UNITIProtocol

/// The running sums behind the comparison with all users (issue 16): per questionnaire item and
/// participant, the sum and count of the numeric answers, in total and per UTC day of the
/// sheet's start, kept up to date in the same transaction that stores a sheet. A comparison then
/// reads one row per participant (or per participant and day), not every answer.
///
/// The results are those of averaging the answers themselves (``SheetStore/participantMeans``):
/// a period `[from, to)` is split into the whole UTC days inside it, read from the day sums, and
/// at most two partial edge days, read from the answers of the sheets started in them
/// (``Window``). Tables: `comparison_totals` and `comparison_days` (both stores).
enum ComparisonSums {
    static let secondsPerDay = 86_400.0

    /// The UTC day (days since 1970-01-01) a sheet started on: the quotient truncated, one less
    /// when that day would begin after the time (before 1970). Written as the SQL of both stores
    /// computes it (``daySQL``), so the two never put one sheet on different days.
    static func day(of startedAt: Date) -> Int64 {
        let seconds = startedAt.timeIntervalSince1970
        let truncated = Int64(seconds / secondsPerDay)
        return seconds < Double(truncated) * secondsPerDay ? truncated - 1 : truncated
    }

    /// The two statements that fill both tables from every stored answer (the SQLite migration and
    /// `maintenance rebuild-comparison` on either store), given the store's SQL for a sheet's day.
    static func fillSQL(day: String) -> String {
        """
        INSERT INTO comparison_totals (questionnaire_id, label, user_id, total, count)
        SELECT s.questionnaire_id, a.label, s.user_id, SUM(a.number), COUNT(*)
        FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
        WHERE a.number IS NOT NULL
        GROUP BY s.questionnaire_id, a.label, s.user_id;
        INSERT INTO comparison_days (questionnaire_id, label, day, user_id, total, count)
        SELECT s.questionnaire_id, a.label, \(day), s.user_id, SUM(a.number), COUNT(*)
        FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
        WHERE a.number IS NOT NULL
        GROUP BY s.questionnaire_id, a.label, \(day), s.user_id
        """
    }

    /// What one batch adds: per item (and day), the sum and count of its numeric answers.
    struct Increment: Hashable {
        var questionnaireId: String
        var label: String
        /// nil for the totals row.
        var day: Int64?
    }

    /// The increments of the sheets actually stored (not duplicates), totals and days together.
    static func increments(of sheets: [AnswerSheet]) -> [Increment: (total: Double, count: Int)] {
        var result: [Increment: (total: Double, count: Int)] = [:]
        for sheet in sheets {
            let day = day(of: sheet.startedAt.date)
            for (label, answer) in sheet.answers {
                guard let number = answer.value.number else { continue }
                for key in [Increment(questionnaireId: sheet.questionnaireID, label: label, day: nil),
                            Increment(questionnaireId: sheet.questionnaireID, label: label, day: day)] {
                    let current = result[key] ?? (0, 0)
                    result[key] = (current.total + number, current.count + 1)
                }
            }
        }
        return result
    }

    /// How a period is read: the whole days from the day sums, the rest from the answers.
    struct Window {
        /// Whole UTC days `[lower, upper)` read from `comparison_days`; nil bounds are open; nil
        /// when no whole day lies inside the period.
        var days: (lower: Int64?, upper: Int64?)?
        /// Stretches `[start, end)` of sheet start times (UTC seconds) read from the answers: each
        /// shorter than a day, at most two.
        var edges: [(start: Double, end: Double)]

        /// nil for no period at all: the totals answer it.
        init?(from: Date?, to: Date?) {
            guard from != nil || to != nil else { return nil }
            let start = from?.timeIntervalSince1970, end = to?.timeIntervalSince1970
            if let start, let end, end <= start {
                days = nil
                edges = []
                return
            }
            // The first whole day begins at or after `from`; the whole days end at or before `to`.
            let lower = start.map { Int64(($0 / ComparisonSums.secondsPerDay).rounded(.up)) }
            let upper = end.map { Int64(($0 / ComparisonSums.secondsPerDay).rounded(.down)) }
            if let lower, let upper, lower >= upper {
                // No whole day inside: the period is under two days, read from the answers.
                days = nil
                edges = [(start!, end!)]
                return
            }
            days = (lower, upper)
            var edges: [(Double, Double)] = []
            if let start, let lower, start < Double(lower) * ComparisonSums.secondsPerDay {
                edges.append((start, Double(lower) * ComparisonSums.secondsPerDay))
            }
            if let end, let upper, Double(upper) * ComparisonSums.secondsPerDay < end {
                edges.append((Double(upper) * ComparisonSums.secondsPerDay, end))
            }
            self.edges = edges
        }
    }

    /// How the whole days of a window are read, given the first and last day with sums stored
    /// for the item: the days inside summed, or — when fewer days lie outside, as for a period
    /// from a person's first sheet until now — the totals minus the days outside. Either way the
    /// rows read are at most half the item's days per participant.
    enum DayRead: Equatable {
        /// Sum the days `[lower, upper)` (nil bounds are open).
        case inside(lower: Int64?, upper: Int64?)
        /// The totals, minus the days before `before` and from `from` on (where not nil).
        case totalsMinus(before: Int64?, from: Int64?)
        /// No stored day lies inside.
        case nothing

        init(_ days: (lower: Int64?, upper: Int64?), stored: ClosedRange<Int64>?) {
            guard let stored else { self = .nothing; return }
            let lower = max(days.lower ?? stored.lowerBound, stored.lowerBound)
            let upper = min(days.upper ?? stored.upperBound + 1, stored.upperBound + 1)
            guard lower < upper else { self = .nothing; return }
            let outside = (lower - stored.lowerBound) + (stored.upperBound + 1 - upper)
            if outside < upper - lower {
                self = .totalsMinus(before: lower > stored.lowerBound ? lower : nil,
                                    from: upper <= stored.upperBound ? upper : nil)
            } else {
                self = .inside(lower: days.lower, upper: days.upper)
            }
        }
    }

    /// Sums and counts per participant, added up (and taken away) from the parts of a window.
    struct Accumulator {
        private(set) var parts: [Int64: (total: Double, count: Int)] = [:]

        mutating func add(userId: Int64, total: Double, count: Int) {
            guard count != 0 else { return }
            let current = parts[userId] ?? (0, 0)
            parts[userId] = (current.total + total, current.count + count)
        }

        mutating func subtract(userId: Int64, total: Double, count: Int) {
            add(userId: userId, total: -total, count: -count)
        }

        /// The mean of every participant with answers left in the window.
        var means: [Int64: Double] {
            parts.filter { $0.value.count > 0 }.mapValues { $0.total / Double($0.count) }
        }
    }
}
