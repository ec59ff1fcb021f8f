import Foundation

/// A visit of a randomised study as its participant sees it (issue 48, "Visits"): what it is
/// called, its window in UTC, the questionnaires due in it and whether they are all answered.
/// The server sends the participant's own visits with the study (``StudyInfo/visits``); the
/// programs work out from the window whether one is due at the moment they look, so a reminder
/// follows the clock between syncs.
public struct StudyVisit: Codable, Hashable, Sendable {
    public var id: String
    public var title: LocalizedText
    /// The window, from its first moment to the moment after it (ISO 8601, UTC).
    public var opens: String
    public var closes: String
    public var questionnaires: [String]
    /// Every questionnaire of the visit is answered.
    public var done: Bool

    public init(id: String, title: LocalizedText, opens: String, closes: String, questionnaires: [String], done: Bool) {
        self.id = id
        self.title = title
        self.opens = opens
        self.closes = closes
        self.questionnaires = questionnaires
        self.done = done
    }

    public enum State: String, Sendable, CaseIterable {
        case upcoming, due, done, missed
    }

    /// Where the visit stands at `now`; nil when a window time cannot be read.
    public func state(at now: Date) -> State? {
        guard let opens = OffsetTimestamp(parsing: opens)?.date, let closes = OffsetTimestamp(parsing: closes)?.date else { return nil }
        if done { return .done }
        return now < opens ? .upcoming : now < closes ? .due : .missed
    }

    /// The visits due at `now`, in window order.
    public static func due(_ visits: [StudyVisit], at now: Date) -> [StudyVisit] {
        visits.filter { $0.state(at: now) == .due }.sorted { $0.closes < $1.closes }
    }
}
