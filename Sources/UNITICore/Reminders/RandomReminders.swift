import UNITIProtocol

/// N reminders a day at random times inside each weekday's window, at least `minimumGap`
/// minutes apart (Track Your Tinnitus thesis, 5.1; the "standard" option of Track Your Stress,
/// 5.4.6; the daily limit of Track Your Hearing).
///
/// The times of a day are a pure function of ``seed`` and the day, so planning the same day
/// twice (the shell and the `reminders run` daemon, or `reminders list` now and later) gives
/// the same times. The seed is drawn once from the injected ``RandomSource`` when the person
/// sets the rule; drawing a new seed reshuffles every future day.
public struct RandomReminders: Sendable, Hashable, Codable {
    /// How often times are drawn.
    public enum Pattern: String, Sendable, Codable {
        /// Fresh times for every date: the sound practice for momentary assessment (people
        /// cannot anticipate the prompt). The default.
        case freshEachDay
        /// One set of times per weekday, repeated every week, as the Track Your Tinnitus app
        /// did (it set weekly repeating notifications once).
        case sameEachWeek
    }

    /// Reminders per enabled day, at least 1.
    public private(set) var count: Int
    /// Minutes between neighbouring reminders, 15 in the theses.
    public private(set) var minimumGap: Int
    /// Monday first, seven entries.
    public private(set) var days: [DayWindow]
    public var pattern: Pattern
    public var seed: UInt64

    public static let standardGap = 15

    /// - Throws: when a day's window cannot hold `count` reminders with the gap.
    public init(count: Int, days: [DayWindow] = DayWindow.week(), minimumGap: Int = standardGap,
                pattern: Pattern = .freshEachDay, seed: UInt64) throws {
        self.count = count
        self.minimumGap = minimumGap
        self.days = Self.normalized(days)
        self.pattern = pattern
        self.seed = seed
        try validate()
    }

    /// A new rule whose seed comes from `random`.
    public init(count: Int, days: [DayWindow] = DayWindow.week(), minimumGap: Int = standardGap,
                pattern: Pattern = .freshEachDay, random: any RandomSource) throws {
        try self.init(count: count, days: days, minimumGap: minimumGap, pattern: pattern, seed: random.nextUInt64())
    }

    public func day(_ weekday: Weekday) -> DayWindow { days[weekday.rawValue - 1] }

    // MARK: - Changes (each validated on a copy; a refused change leaves the value as it was)

    public mutating func setCount(_ newCount: Int) throws {
        try change { $0.count = newCount }
    }

    public mutating func setMinimumGap(_ minutes: Int) throws {
        try change { $0.minimumGap = minutes }
    }

    public mutating func setWindow(_ window: TimeWindow, on weekday: Weekday) throws {
        try change { $0.days[weekday.rawValue - 1].window = window }
    }

    public mutating func setEnabled(_ enabled: Bool, on weekday: Weekday) throws {
        try change { $0.days[weekday.rawValue - 1].isEnabled = enabled }
    }

    private mutating func change(_ body: (inout RandomReminders) -> Void) throws {
        var copy = self
        body(&copy)
        try copy.validate()
        self = copy
    }

    /// Every enabled day's window must hold `count` reminders with the gap; the message names
    /// the largest count that fits on every enabled day.
    public func validate() throws {
        guard minimumGap >= 0 else {
            throw UNITIError(L("reminders.error.gap", ["gap": "\(minimumGap)"]))
        }
        guard count >= 1 else {
            throw UNITIError(L("reminders.error.countTooSmall", ["count": "\(count)"]))
        }
        let enabled = days.filter(\.isEnabled)
        guard let tightest = enabled.min(by: { $0.window.capacity(minimumGap: minimumGap) < $1.window.capacity(minimumGap: minimumGap) })
        else { return }
        try ReminderPlanner.checkFeasible(count: count, in: tightest.window, minimumGap: minimumGap)
    }

    /// The random times of `date` (none on a disabled day).
    public func times(on date: LocalDate) throws -> [TimeOfDay] {
        let day = day(date.weekday)
        guard day.isEnabled else { return [] }
        let key = pattern == .freshEachDay ? Int64(date.dayNumber) : Int64(-date.weekday.rawValue)
        let source = SeededRandomSource(seed: PromptDraw.daySeed(seed, key: key))
        return try ReminderPlanner.distribute(count: count, in: day.window, minimumGap: minimumGap, using: source)
    }

    private static func normalized(_ days: [DayWindow]) -> [DayWindow] {
        Weekday.allCases.map { weekday in days.last { $0.weekday == weekday } ?? DayWindow(weekday: weekday) }
    }

    private enum CodingKeys: String, CodingKey { case count, minimumGap, days, pattern, seed }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(count: c.decode(Int.self, forKey: .count),
                      days: c.decodeIfPresent([DayWindow].self, forKey: .days) ?? DayWindow.week(),
                      minimumGap: c.decodeIfPresent(Int.self, forKey: .minimumGap) ?? Self.standardGap,
                      pattern: c.decodeIfPresent(Pattern.self, forKey: .pattern) ?? .freshEachDay,
                      seed: c.decode(UInt64.self, forKey: .seed))
    }
}
