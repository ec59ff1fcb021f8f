import Foundation

/// A calendar date without a time or a time zone (proleptic Gregorian), and the conversion of
/// "this date at this wall-clock time in this zone" to an instant.
///
/// Reminder times are wall-clock times: 08:30 stays 08:30 when the clocks change. Doing the
/// date arithmetic on plain day numbers (days since 1970-01-01) keeps planning fast and
/// independent of `Calendar`'s platform differences; only the zone's UTC offsets are asked.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "-").map { Int($0) }
        guard parts.count == 3, let y = parts[0], let m = parts[1], let d = parts[2],
              (1...12).contains(m), (1...LocalDate.daysIn(year: y, month: m)).contains(d)
        else { throw UNITIError(L("reminders.error.date", ["text": text])) }
        self.init(year: y, month: m, day: d)
    }

    /// The date of `date` as seen on a wall clock in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone) {
        let local = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        self.init(dayNumber: Self.floorDiv(local, 86_400))
    }

    /// Days since 1970-01-01 (negative before). Algorithm: H. Hinnant, "chrono-compatible
    /// low-level date algorithms" (days_from_civil).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = Self.floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of ``dayNumber`` (civil_from_days).
    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = Self.floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    public var weekday: Weekday {
        // 1970-01-01 was a Thursday (ISO 4).
        Weekday(rawValue: Self.floorMod(dayNumber + 3, 7) + 1)!
    }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// The Monday of this date's ISO week.
    public var startOfWeek: LocalDate { adding(days: 1 - weekday.rawValue) }

    public var startOfMonth: LocalDate { LocalDate(year: year, month: month, day: 1) }

    public var startOfNextMonth: LocalDate {
        month == 12 ? LocalDate(year: year + 1, month: 1, day: 1) : LocalDate(year: year, month: month + 1, day: 1)
    }

    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The instant at which a wall clock in `timeZone` shows this date and `time`.
    ///
    /// A time skipped when the clocks go forward (02:30 on the last Sunday of March in
    /// Europe/Berlin) does not exist; it moves forward by the length of the gap (to 03:30), as
    /// calendar programs do, so that the order and gaps of the day's times are kept. A time that
    /// occurs twice when the clocks go back is taken at its first occurrence.
    ///
    /// Known edge: when a window spans the skipped hour, a random time moved out of the gap
    /// may come closer than the minimum gap to a time drawn just after the gap (e.g. 02:10 →
    /// 03:10 next to 03:12). Times on both sides of the gap keep their spacing.
    public func instant(at time: TimeOfDay, in timeZone: TimeZone) -> Date {
        let wall = Double(dayNumber * 86_400 + time.minutes * 60)
        // Offsets in force a day before and a day after cover any single transition on this day.
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400))
        var earliest: Date?
        for offset in Set([before, after]) {
            let candidate = Date(timeIntervalSince1970: wall - Double(offset))
            if timeZone.secondsFromGMT(for: candidate) == offset, earliest.map({ candidate < $0 }) ?? true {
                earliest = candidate
            }
        }
        // No offset gives this wall time: it falls in the gap; read it with the offset before.
        return earliest ?? Date(timeIntervalSince1970: wall - Double(before))
    }

    /// ``instant(at:in:)`` for several times of this day, asking the zone for its offset only
    /// twice when the clocks do not change around this day (the common case, and what makes
    /// planning a year quick).
    public func instants(at times: [TimeOfDay], in timeZone: TimeZone) -> [Date] {
        instants(at: times, in: timeZone, steadyOffset: steadyOffset(in: timeZone))
    }

    /// The zone's UTC offset around this day when it does not change from the day before to
    /// the day after (nil on and next to days when the clocks change). Ask once per day and
    /// pass it to ``instants(at:in:steadyOffset:)`` for every rule of that day.
    public func steadyOffset(in timeZone: TimeZone) -> Int? {
        let midnight = Double(dayNumber * 86_400)
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight + 2 * 86_400))
        return before == after ? before : nil
    }

    public func instants(at times: [TimeOfDay], in timeZone: TimeZone, steadyOffset: Int?) -> [Date] {
        guard let offset = steadyOffset else { return times.map { instant(at: $0, in: timeZone) } }
        let midnight = Double(dayNumber * 86_400)
        return times.map { Date(timeIntervalSince1970: midnight + Double($0.minutes * 60 - offset)) }
    }

    /// Local midnight (the start of this day) in `timeZone`.
    public func startInstant(in timeZone: TimeZone) -> Date {
        instant(at: TimeOfDay(minutes: 0), in: timeZone)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let m = month < 10 ? "0\(month)" : "\(month)"
        let d = day < 10 ? "0\(day)" : "\(day)"
        return "\(year)-\(m)-\(d)"
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.dayNumber < rhs.dayNumber }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func floorMod(_ a: Int, _ b: Int) -> Int { a - floorDiv(a, b) * b }
}
