import Foundation
import UNITIProtocol

/// A visit of a trial (issue 48, "Visits"): a day counted from randomisation (or from joining),
/// a window of so many days either side, and the questionnaires due in it. In the design:
///
///     "visits": [{"id": "baseline", "label": "Baseline", "day": 0, "window": 7, "questionnaires": ["thi"]},
///                {"id": "week12", "label": "Week 12", "day": 84, "window": 7, "questionnaires": ["thi", "whoqol"]}]
///
/// Day `d` is the 24 hours starting `d × 24` hours after the anchor (as an arm's module days).
struct TrialVisit: Codable, Sendable, Equatable {
    var id: String
    /// For staff, and for participants when there is no ``title``.
    var label: String
    /// What participants read, in the study's languages (optional).
    var title: LocalizedText?
    var day: Int
    /// Days either side of `day` that still count as in the window.
    var window: Int
    var questionnaires: [String]
    /// What `day` counts from: randomisation (nil) or joining.
    var from: Anchor?

    enum Anchor: String, Codable, Sendable, CaseIterable {
        case randomisation, joining
    }

    var anchor: Anchor { from ?? .randomisation }

    /// The name participants see.
    var participantTitle: LocalizedText { title ?? LocalizedText(["en": label]) }
}

/// Where a participant stands with one visit.
struct VisitStatus: Sendable, Equatable {
    enum State: String, Sendable, CaseIterable {
        /// The window has not opened, and nothing was answered for it.
        case upcoming
        /// The window is open, and not every questionnaire is answered yet.
        case due
        /// Every questionnaire was answered inside the window.
        case inWindow = "done-in-window"
        /// Every questionnaire was answered, some outside the window (early or late).
        case outOfWindow = "done-out-of-window"
        /// The window has closed without every questionnaire answered.
        case missed
        /// The day it counts from has not come (not randomised yet).
        case unscheduled
    }

    var visit: TrialVisit
    var state: State
    /// The window: from its first moment to the moment after it (nil: unscheduled).
    var opens: Date?
    var closes: Date?
    /// When the last of its questionnaires was answered, once all are.
    var doneAt: Date?

    /// Each visit's state for a participant: anchored at their randomisation or joining, with
    /// their sheets (questionnaire, start). A sheet counts for the visit whose window holds it;
    /// outside every window, for the nearer of the two visits around it (of the same anchor),
    /// where it makes that visit done out of window. Before the first visit of an anchor a sheet
    /// counts from halfway between the anchor and its window (or one window's width before a
    /// window that opens at the anchor); after the last, however late.
    static func of(_ visits: [TrialVisit], randomised: Date?, joined: Date?, sheets: [(questionnaire: String, started: Date)],
                   now: Date) -> [VisitStatus] {
        let day = 86_400.0
        func anchor(_ visit: TrialVisit) -> Date? { visit.anchor == .randomisation ? randomised : joined }
        func window(_ visit: TrialVisit) -> (Date, Date)? {
            anchor(visit).map { ($0.addingTimeInterval(Double(visit.day - visit.window) * day), $0.addingTimeInterval(Double(visit.day + visit.window + 1) * day)) }
        }
        return visits.map { visit in
            guard let (opens, closes) = window(visit) else { return VisitStatus(visit: visit, state: .unscheduled) }
            // The stretch whose sheets count for this visit: up to halfway to the neighbouring
            // windows of the same anchor.
            let neighbours = visits.filter { $0.anchor == visit.anchor && $0.id != visit.id }.compactMap(window)
            // Before the first visit of its anchor: from halfway between the anchor and the
            // window (a sheet from before randomisation is not an early week 12), or for a
            // window that opens at the anchor or before, one window's width before it.
            let start = anchor(visit) ?? opens
            let first = opens > start ? Date(timeIntervalSince1970: (start.timeIntervalSince1970 + opens.timeIntervalSince1970) / 2)
                : opens.addingTimeInterval(-Double(visit.window) * day)
            let lower = neighbours.filter { $0.1 <= opens }.map { Date(timeIntervalSince1970: ($0.1.timeIntervalSince1970 + opens.timeIntervalSince1970) / 2) }.max()
                ?? first
            let upper = neighbours.filter { $0.0 >= closes }.map { Date(timeIntervalSince1970: ($0.0.timeIntervalSince1970 + closes.timeIntervalSince1970) / 2) }.min()
                ?? .distantFuture
            func answered(_ range: Range<Date>) -> Date? {
                var last = Date.distantPast
                for questionnaire in visit.questionnaires {
                    guard let first = sheets.filter({ $0.questionnaire == questionnaire && range.contains($0.started) }).map(\.started).min() else { return nil }
                    last = max(last, first)
                }
                return last
            }
            if let done = answered(opens..<closes) {
                return VisitStatus(visit: visit, state: .inWindow, opens: opens, closes: closes, doneAt: done)
            }
            if let done = answered(lower..<upper) {
                return VisitStatus(visit: visit, state: .outOfWindow, opens: opens, closes: closes, doneAt: done)
            }
            let state: State = now < opens ? .upcoming : now < closes ? .due : .missed
            return VisitStatus(visit: visit, state: state, opens: opens, closes: closes)
        }
    }
}
