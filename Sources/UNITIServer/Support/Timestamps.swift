import Foundation
import UNITIProtocol

/// ISO 8601 reading and writing in one place. The server keeps instants as UTC seconds and keeps the
/// client's UTC offset beside them, so that export can show the participant's local wall-clock time.
///
/// Built on `OffsetTimestamp`'s own formatting and parsing rather than `ISO8601DateFormatter`:
/// creating a formatter costs an ICU date format, and the sheet upload formatted a time per sheet
/// (a third of the server's time in a profile of `Scripts/bench/sync`).
package enum Timestamps {
    private static let utc = TimeZone(secondsFromGMT: 0)!

    /// `2026-11-22T09:30:00Z` (server times, always UTC, whole seconds).
    package static func format(_ date: Date) -> String {
        format(date, offsetMinutes: 0)
    }

    /// `2026-11-22T09:30:00.125Z`: UTC to the millisecond, for record update times, which
    /// decide between two devices' edits made within one second.
    package static func formatMilliseconds(_ date: Date) -> String {
        OffsetTimestamp.utcMilliseconds(date)
    }

    /// A client time with its offset: `2026-11-22T09:30:00+01:00` (`Z` for UTC).
    package static func format(_ date: Date, offsetMinutes: Int) -> String {
        let zone = offsetMinutes == 0 ? utc : TimeZone(secondsFromGMT: offsetMinutes * 60) ?? utc
        let text = OffsetTimestamp(date, in: zone).text
        return zone.secondsFromGMT() == 0 ? String(text.dropLast(6)) + "Z" : text
    }

    /// Parses an ISO 8601 time that names its offset (`Z` or `±hh:mm`), with or without fractional
    /// seconds (RFC 3339 also allows a lower-case `t` and `z`); returns the instant and the offset in minutes.
    package static func parseWithOffset(_ text: String) -> (date: Date, offsetMinutes: Int)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 20, trimmed.count <= 40, let parsed = OffsetTimestamp(parsing: trimmed) else { return nil }
        return (parsed.date, parsed.offsetSeconds / 60)
    }

    package static func parse(_ text: String) -> Date? {
        parseWithOffset(text)?.date
    }
}
