import Foundation

/// The part of some weekdays in which a study's prompts may come: `{"days": ["mon", …, "fri"],
/// "from": "08:00", "to": "22:00"}`. Times are wall-clock times in the participant's zone, the
/// window never crosses midnight, and both ends are included (a prompt may fall at 22:00).
public struct PromptWindow: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Weekdays by their three-letter English names, `mon` … `sun`.
    public var days: [String]
    /// `HH:MM`.
    public var from: String
    public var to: String

    public init(days: [String], from: String, to: String) {
        (self.days, self.from, self.to) = (days, from, to)
    }

    /// The weekdays' names, Monday first (ISO 8601 numbers them 1 … 7 in this order).
    public static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// The ISO numbers of ``days`` (1 = Monday); nil when a name is none of ``weekdayNames``.
    public var weekdays: [Int]? {
        let numbers = days.map { Self.weekdayNames.firstIndex(of: $0).map { $0 + 1 } }
        return numbers.contains(nil) ? nil : numbers.compactMap { $0 }
    }

    /// The window in minutes after midnight; nil when a time is not `HH:MM` or `from` is not before `to`.
    public var minutes: ClosedRange<Int>? {
        guard let start = Self.minutes(from), let end = Self.minutes(to), start < end else { return nil }
        return start...end
    }

    /// `mon-fri=08:00-22:00`, as ``init(parsing:)`` reads it (a run of three or more days joined by `-`).
    public var description: String { "\(Self.dayList(weekdays ?? []))=\(from)-\(to)" }

    /// Reads `mon-fri=08:00-22:00`, `sat,sun=10:00-22:00` or `mon,wed-fri=09:00-21:00`; nil for
    /// anything else (an unknown day, a time that is not `HH:MM`, a window that ends before it starts).
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var days: [Int] = []
        for piece in parts[0].split(separator: ",", omittingEmptySubsequences: false) {
            let ends = piece.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count),
                  let first = Self.weekdayNames.firstIndex(of: String(ends[0])),
                  let last = Self.weekdayNames.firstIndex(of: String(ends[ends.count - 1])), first <= last else { return nil }
            days += Array((first + 1)...(last + 1))
        }
        let times = parts[1].trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard times.count == 2 else { return nil }
        self.init(days: days.map { Self.weekdayNames[$0 - 1] }, from: String(times[0]), to: String(times[1]))
        guard minutes != nil else { return nil }
    }

    /// Minutes after midnight of `HH:MM` (two-digit hour and minute), nil for anything else.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return hour * 60 + minute
    }

    /// `HH:MM` of minutes after midnight.
    public static func time(_ minutes: Int) -> String {
        let (hour, minute) = (minutes / 60, minutes % 60)
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// `mon-fri`, `sat,sun`, `mon,wed-fri`: runs of three or more days joined by `-`.
    static func dayList(_ numbers: [Int]) -> String {
        var runs: [[Int]] = []
        for number in numbers.sorted() {
            if let last = runs.last?.last, last + 1 == number { runs[runs.count - 1].append(number) } else { runs.append([number]) }
        }
        return runs.map { run in
            run.count >= 3 ? "\(weekdayNames[run[0] - 1])-\(weekdayNames[run[run.count - 1] - 1])"
                : run.map { weekdayNames[$0 - 1] }.joined(separator: ",")
        }.joined(separator: ",")
    }

    /// The windows of a week given per weekday (Monday first, nil: no prompts that day), with
    /// the days that share a window together.
    public static func grouped(_ week: [ClosedRange<Int>?]) -> [PromptWindow] {
        var windows: [PromptWindow] = []
        for (index, window) in week.enumerated() {
            guard let window else { continue }
            let (from, to) = (time(window.lowerBound), time(window.upperBound))
            if let same = windows.firstIndex(where: { $0.from == from && $0.to == to }) {
                windows[same].days.append(weekdayNames[index])
            } else {
                windows.append(PromptWindow(days: [weekdayNames[index]], from: from, to: to))
            }
        }
        return windows
    }
}

extension QuestionnaireSchedule {
    /// The window of 08:00–22:00 on every day that a schedule without ``windows`` has (the
    /// Track Your Tinnitus and Track Your Hearing theses' default).
    public static let standardWindow = 480...1320

    /// Each weekday's window, Monday first; nil on a day without prompts. A schedule without
    /// ``windows`` has the standard window every day; a weekday named twice keeps its last window.
    public var week: [ClosedRange<Int>?] {
        guard let windows else { return Array(repeating: Self.standardWindow, count: 7) }
        var week: [ClosedRange<Int>?] = Array(repeating: nil, count: 7)
        for window in windows {
            guard let range = window.minutes else { continue }
            for day in window.weekdays ?? [] { week[day - 1] = range }
        }
        return week
    }

    /// The least minutes between two prompts of one day: ``minimumGapMinutes``, or the
    /// completion window (prompts never overlap). A definition saved before gaps existed may ask
    /// for more prompts than fit with its completion window: its gap shrinks to what fits.
    public func gap(completionWindowMinutes: Int) -> Int {
        if let minimumGapMinutes { return minimumGapMinutes }
        let amount = max(1, self.amount ?? 1)
        guard amount > 1, let shortest = week.compactMap({ $0.map { $0.upperBound - $0.lowerBound } }).min() else { return completionWindowMinutes }
        return max(1, min(completionWindowMinutes, shortest / (amount - 1)))
    }
}

/// How random prompt times are drawn, on the device that plans them and on the server that
/// shows a study's week before it runs: the algorithm of the Track Your Tinnitus thesis (5.1),
/// every time drawn once from the range it may take (N sorted points in the window shortened by
/// N − 1 gaps, the i-th moved by i gaps), with SplitMix64 (Steele, Lea, Flood 2014) as the
/// seeded source, so the same seed and day give the same times everywhere.
public enum PromptDraw {
    /// The SplitMix64 output function: also derives an independent seed from structured input.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed of one participant's random prompts of a questionnaire: the same on every run (and
    /// in the reminder daemon), different for each questionnaire and each time the person joins.
    /// The console's preview draws with the seed of someone joining at the moment it is shown.
    public static func seed(study: String, questionnaire: String, joinedAt: Date) -> UInt64 {
        mix(StableHash.fnv1a("\(study)/\(questionnaire)") ^ UInt64(bitPattern: Int64(joinedAt.timeIntervalSince1970)))
    }

    /// SplitMix64 as a generator.
    public struct Generator: RandomNumberGenerator, Sendable {
        public var state: UInt64
        public init(seed: UInt64) { state = seed }
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return PromptDraw.mix(state)
        }
    }

    /// The seed of one day of a rule seeded `seed`: `key` is the day's number (days since
    /// 1970-01-01) for fresh times every day.
    public static func daySeed(_ seed: UInt64, key: Int64) -> UInt64 {
        mix(seed ^ mix(UInt64(bitPattern: key)))
    }

    /// How many prompts fit in `window` with `gap` minutes between neighbours.
    public static func capacity(of window: ClosedRange<Int>, gap: Int) -> Int {
        gap <= 0 ? Int.max : (window.upperBound - window.lowerBound) / gap + 1
    }

    /// `count` minutes after midnight in `window`, sorted, neighbours at least `gap` apart.
    /// - Precondition: `1 <= count <= capacity(of: window, gap: gap)`.
    public static func minutes(count: Int, in window: ClosedRange<Int>, gap: Int, using generator: inout some RandomNumberGenerator) -> [Int] {
        precondition(count >= 1 && count <= capacity(of: window, gap: gap), "the prompts do not fit the window")
        let gap = max(gap, 0)
        let slack = window.upperBound - window.lowerBound - (count - 1) * gap
        var offsets = (0..<count).map { _ in Int.random(in: 0...slack, using: &generator) }
        offsets.sort()
        return offsets.enumerated().map { index, offset in window.lowerBound + offset + index * gap }
    }
}

/// One day of a schedule's preview (``QuestionnaireSchedule/preview(seed:joinedOnDayNumber:days:completionWindowMinutes:)``).
public struct PromptPreviewDay: Hashable, Sendable {
    /// Days since 1970-01-01.
    public var dayNumber: Int
    /// 1 = Monday … 7 = Sunday.
    public var weekday: Int
    /// Days after joining (0 = the day of joining).
    public var dayAfterJoining: Int
    /// The prompts' times in minutes after midnight; empty on a day without prompts.
    public var minutes: [Int]
}

extension QuestionnaireSchedule {
    /// The random prompts of a daily schedule on the first `days` days of a participant who joins
    /// on day `joinedOnDayNumber` and whose times are seeded `seed`, drawn as the device's planner
    /// draws them (``PromptDraw``, fresh times each day): no prompts before ``startOnDay`` or after
    /// ``endOnDay``, on a day `every` skips, nor on a weekday without a window. Nil for a schedule that is not daily or
    /// whose prompts do not fit a window.
    public func preview(seed: UInt64, joinedOnDayNumber: Int, days: Int = 7, completionWindowMinutes: Int) -> [PromptPreviewDay]? {
        guard frequency == .daily else { return nil }
        let count = max(1, amount ?? 1), gap = gap(completionWindowMinutes: completionWindowMinutes), week = week
        var result: [PromptPreviewDay] = []
        for offset in 0..<days {
            let dayNumber = joinedOnDayNumber + offset
            let weekday = ((dayNumber + 3) % 7 + 7) % 7 + 1  // 1970-01-01 was a Thursday
            var minutes: [Int] = []
            let first = max(0, startOnDay ?? 0)
            if offset >= first, offset <= (endOnDay ?? Int.max), (offset - first) % max(1, every ?? 1) == 0, let window = week[weekday - 1] {
                guard count <= PromptDraw.capacity(of: window, gap: gap) else { return nil }
                var generator = PromptDraw.Generator(seed: PromptDraw.daySeed(seed, key: Int64(dayNumber)))
                minutes = PromptDraw.minutes(count: count, in: window, gap: gap, using: &generator)
            }
            result.append(PromptPreviewDay(dayNumber: dayNumber, weekday: weekday, dayAfterJoining: offset, minutes: minutes))
        }
        return result
    }
}
