import Foundation

/// A wall-clock time within a day, to the minute (reminders need no seconds; the Track Your
/// Tinnitus thesis, 5.1, also drops them).
///
/// Stored as minutes since midnight so that windows and gaps are plain integer arithmetic.
public struct TimeOfDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Minutes since midnight, 0 ... 1439.
    public let minutes: Int

    public static let minutesPerDay = 24 * 60

    /// - Precondition: `0 <= minutes < 1440`; use ``init(parsing:)`` for input from people.
    public init(minutes: Int) {
        precondition((0..<Self.minutesPerDay).contains(minutes), "time of day out of range")
        self.minutes = minutes
    }

    public init(hour: Int, minute: Int) {
        self.init(minutes: hour * 60 + minute)
    }

    /// Parses `HH:MM` (one-digit hours allowed: `8:05`), refusing anything else with one line
    /// that says what is accepted.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
              (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute)
        else {
            throw UNITIError(L("reminders.error.time", ["text": trimmed]))
        }
        self.init(hour: hour, minute: minute)
    }

    public var hour: Int { minutes / 60 }
    public var minute: Int { minutes % 60 }

    /// `HH:MM`, zero-padded.
    public var description: String {
        let h = hour < 10 ? "0\(hour)" : "\(hour)"
        let m = minute < 10 ? "0\(minute)" : "\(minute)"
        return "\(h):\(m)"
    }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minutes < rhs.minutes }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(parsing: text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
