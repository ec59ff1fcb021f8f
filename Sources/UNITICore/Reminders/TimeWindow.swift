/// The part of a day in which reminders may come: from `start` to `end`, both included.
///
/// A window never crosses midnight (start must come before end), as in the Track Your Hearing
/// settings; the default is 08:00–22:00, the window of the Track Your Tinnitus and Track Your
/// Hearing theses.
public struct TimeWindow: Sendable, Hashable, Codable, CustomStringConvertible {
    public let start: TimeOfDay
    public let end: TimeOfDay

    /// 08:00–22:00.
    public static let standard = TimeWindow(uncheckedStart: TimeOfDay(hour: 8, minute: 0),
                                            end: TimeOfDay(hour: 22, minute: 0))

    /// Refuses a window whose start is not before its end.
    public init(start: TimeOfDay, end: TimeOfDay) throws {
        guard start < end else {
            throw UNITIError(L("reminders.error.windowOrder", ["start": "\(start)", "end": "\(end)"]))
        }
        self.start = start
        self.end = end
    }

    /// Parses `HH:MM-HH:MM`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw UNITIError(L("reminders.error.window", ["text": text]))
        }
        try self.init(start: TimeOfDay(parsing: String(parts[0])), end: TimeOfDay(parsing: String(parts[1])))
    }

    init(uncheckedStart start: TimeOfDay, end: TimeOfDay) {
        self.start = start
        self.end = end
    }

    /// Minutes from start to end.
    public var length: Int { end.minutes - start.minutes }

    public func contains(_ time: TimeOfDay) -> Bool { start <= time && time <= end }

    /// The largest number of reminders that fit with `minimumGap` minutes between neighbours:
    /// N reminders need (N − 1) gaps.
    public func capacity(minimumGap: Int) -> Int {
        minimumGap <= 0 ? Int.max : length / minimumGap + 1
    }

    public var description: String { "\(start)-\(end)" }

    private enum CodingKeys: String, CodingKey { case start, end }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(start: container.decode(TimeOfDay.self, forKey: .start),
                      end: container.decode(TimeOfDay.self, forKey: .end))
    }
}
