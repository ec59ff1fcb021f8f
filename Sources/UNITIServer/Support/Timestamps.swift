import Foundation

/// ISO 8601 reading and writing in one place. The server keeps instants as UTC seconds and keeps the
/// client's UTC offset beside them, so that export can show the participant's local wall-clock time.
enum Timestamps {
    /// `2026-11-22T09:30:00Z` (server times, always UTC).
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// `2026-11-22T09:30:00.125Z`: UTC to the millisecond, for record update times, which
    /// decide between two devices' edits made within one second.
    static func formatMilliseconds(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A client time with its offset: `2026-11-22T09:30:00+01:00`.
    static func format(_ date: Date, offsetMinutes: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: offsetMinutes * 60)
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Parses an ISO 8601 time that names its offset (`Z` or `±hh:mm`), with or without fractional
    /// seconds; returns the instant and the offset in minutes.
    static func parseWithOffset(_ text: String) -> (date: Date, offsetMinutes: Int)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 20, trimmed.count <= 40 else { return nil }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = plain.date(from: trimmed) ?? fractional.date(from: trimmed) else { return nil }
        return (date, offsetMinutes(of: trimmed) ?? 0)
    }

    static func parse(_ text: String) -> Date? {
        parseWithOffset(text)?.date
    }

    private static func offsetMinutes(of text: String) -> Int? {
        if text.hasSuffix("Z") || text.hasSuffix("z") { return 0 }
        let suffix = text.suffix(6)
        guard suffix.count == 6, let sign = suffix.first, sign == "+" || sign == "-" else { return nil }
        let parts = suffix.dropFirst().split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]) else { return nil }
        let total = hours * 60 + minutes
        return sign == "-" ? -total : total
    }
}
