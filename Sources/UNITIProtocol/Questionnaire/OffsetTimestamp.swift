import Foundation

/// A moment together with the UTC offset it was recorded in, written as ISO 8601
/// (`2026-11-22T16:05:09+01:00`).
///
/// Momentary assessment cares about the person's local time of day ("answered at 8 in the
/// morning"), which a bare UTC instant loses when people travel or clocks change; keeping the
/// offset keeps both the instant and the local wall-clock time.
public struct OffsetTimestamp: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The ISO 8601 text, as sent and stored.
    public let text: String
    /// The instant.
    public let date: Date
    /// The offset from UTC in seconds (east positive).
    public let offsetSeconds: Int

    /// Formats `date` in `timeZone` (whole seconds).
    public init(_ date: Date, in timeZone: TimeZone) {
        let offset = timeZone.secondsFromGMT(for: date)
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = Self.floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        let magnitude = abs(offset)
        text = Self.text(year: year, month: month, day: day, secondOfDay: secondOfDay,
                         sign: offset < 0 ? "-" : "+", offsetMinutes: magnitude / 60)
        self.date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        self.offsetSeconds = offset
    }

    /// A UTC time to the millisecond (`2026-11-22T16:05:09.250Z`), for update times of records
    /// that two devices may change within one second.
    public static func utcMilliseconds(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let whole = OffsetTimestamp(Date(timeIntervalSince1970: (milliseconds / 1000).rounded(.down)), in: TimeZone(secondsFromGMT: 0)!)
        let fraction = Int(milliseconds - (milliseconds / 1000).rounded(.down) * 1000)
        var digits = [UInt8(ascii: ".")]
        appendDigits(fraction, width: 3, to: &digits)
        return String(whole.text.dropLast(6)) + String(decoding: digits, as: UTF8.self) + "Z"
    }

    /// `yyyy-MM-ddTHH:mm:ss±hh:mm`, its digits written one by one: every stored sheet and every
    /// answer to an upload formats times, and `String(format:)` cost more than the rest of the
    /// formatting (its arguments are boxed and cast one at a time).
    private static func text(year: Int, month: Int, day: Int, secondOfDay: Int, sign: String, offsetMinutes: Int) -> String {
        guard (0...9999).contains(year) else {
            // Beyond four digits (no real answer's time): printf widens the year.
            return String(format: "%04d", year) + String(text(year: 0, month: month, day: day, secondOfDay: secondOfDay, sign: sign,
                                                             offsetMinutes: offsetMinutes).dropFirst(4))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(25)
        appendDigits(year, width: 4, to: &bytes)
        for (separator, value) in [("-", month), ("-", day), ("T", secondOfDay / 3600), (":", (secondOfDay / 60) % 60),
                                   (":", secondOfDay % 60), (sign, offsetMinutes / 60), (":", offsetMinutes % 60)] {
            bytes.append(contentsOf: separator.utf8)
            appendDigits(value, width: 2, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` (0 to 9999) in decimal, zero-padded to `width` digits.
    private static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
            divisor /= 10
        }
    }

    /// Accepts ISO 8601 text with an offset (`+01:00`, `-0530`, `Z`); nil otherwise.
    /// The date and time to the minute as a person reads it, in the recorded offset:
    /// `2026-11-23 14:05`.
    public var minuteText: String { Self.minuteText(text) }

    /// ``minuteText`` of a timestamp kept as text (`2026-11-23T14:05:09+01:00`).
    public static func minuteText(_ text: String) -> String {
        String(text.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    public init?(parsing text: String) {
        guard let parsed = Self.parse(text) else { return nil }
        self.text = text
        self.date = parsed.date
        self.offsetSeconds = parsed.offset
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let raw = try c.decode(String.self)
        guard let parsed = Self.parse(raw) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "\"\(raw)\" is not an ISO 8601 time with a UTC offset (2026-11-22T16:05:09+01:00)")
        }
        text = raw
        date = parsed.date
        offsetSeconds = parsed.offset
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }

    public var description: String { text }

    private static func parse(_ text: String) -> (date: Date, offset: Int)? {
        let scalars = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[from..<(from + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard scalars.count >= 20, scalars[4] == 45, scalars[7] == 45, scalars[10] == 84 || scalars[10] == 116,
              scalars[13] == 58, scalars[16] == 58,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              CalendarDay.exists(year: year, month: month, day: day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < scalars.count, scalars[index] == 46 {  // "."
            index += 1
            var scale = 0.1
            let start = index
            while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                fraction += Double(scalars[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < scalars.count else { return nil }
        var offset = 0
        if scalars[index] == 90 || scalars[index] == 122 {  // Z
            guard index + 1 == scalars.count else { return nil }
        } else if scalars[index] == 43 || scalars[index] == 45 {
            let sign = scalars[index] == 45 ? -1 : 1
            let rest = scalars.count - index - 1
            let hours: Int?, minutes: Int?
            if rest == 5, scalars[index + 3] == 58 {
                hours = number(index + 1, 2); minutes = number(index + 4, 2)
            } else if rest == 4 {
                hours = number(index + 1, 2); minutes = number(index + 3, 2)
            } else { return nil }
            guard let hours, let minutes, hours <= 18, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        let days = daysFromCivil(year, month, day)
        let local = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        return (Date(timeIntervalSince1970: local - Double(offset)), offset)
    }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    // Days since 1970-01-01 and back (Howard Hinnant's civil-date algorithms).
    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
