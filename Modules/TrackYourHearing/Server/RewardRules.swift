import Foundation
import UNITIProtocol

/// Track Your Hearing's rewards (FR11, "Belohnungssystem", Track Your Hearing thesis 3.1; the
/// thesis left it unbuilt, 7.1), computed from the answer sheets the server received: pure, so
/// the same sheets always give the same status, whichever device asks.
///
/// The rules reward answering, never particular answers (the values are not even read):
/// - each counted sheet earns ``pointsPerSheet``, plus ``onTimeBonus`` when it was started within
///   ``onTimeWindow`` after the reminder that prompted it (`0 ≤ startedAt − remindedAt ≤ 3600 s`);
/// - at most ``maximumSheetsPerDay`` sheets count per local day (the day of the sheet's finishing
///   time in its own UTC offset), the first ones finished; the thesis's app sends at most twelve
///   reminders a day (5.2.5, 6.5), and filling in again and again must not pay;
/// - a streak is a run of consecutive local days with a counted sheet; the current one ends on
///   the day of the last counted sheet (the client decides whether it is still alive);
/// - levels start at ``levelThresholds``; badges (``Badge``) are earned once, by the sheet that
///   first reaches them.
///
/// ## Topics
/// - ``Sheet``: what is known of one sheet
/// - ``status(studyId:sheets:)``: the whole status
/// - ``level(points:)``, ``isOnTime(_:)``
public enum RewardRules {
    /// One completed sheet of a Track Your Hearing questionnaire, as the rules see it.
    public struct Sheet: Sendable, Hashable {
        /// The client-made id: a sheet sent twice counts once.
        public var id: UUID
        /// `endedAt`, else `startedAt`, with the person's UTC offset: it decides the local day, the
        /// order, and the time a badge was earned.
        public var finishedAt: OffsetTimestamp
        public var startedAt: Date
        /// The reminder that prompted it, when plausible (``plausibleReminder(_:)``).
        public var remindedAt: Date?

        public init(id: UUID, finishedAt: OffsetTimestamp, startedAt: Date, remindedAt: Date?) {
            self.id = id
            self.finishedAt = finishedAt
            self.startedAt = startedAt
            self.remindedAt = remindedAt
        }

        /// A completed sheet as stored: finished at its `endedAt`, else `startedAt`; its
        /// reminder only when plausible.
        public init(_ sheet: AnswerSheet) {
            self.init(id: sheet.id, finishedAt: sheet.endedAt ?? sheet.startedAt, startedAt: sheet.startedAt.date,
                      remindedAt: RewardRules.plausibleReminder(sheet))
        }
    }

    /// How far after the sheet's start its reminder may lie and still be believed: the reminder
    /// and the start are read from the same device clock, so only a notification shown a little
    /// before its due time explains a later reminder.
    static let reminderTolerance: TimeInterval = 300

    /// The sheet's `remindedAt` when it is possible: at most ``reminderTolerance`` after the start.
    /// An impossible one (a reminder due after the sheet was started) was not refused — the
    /// server keeps a sheet as sent, answers are never lost — but it is ignored here (nil), so a
    /// bad clock or an edited sheet cannot earn an on-time bonus.
    public static func plausibleReminder(_ sheet: AnswerSheet) -> Date? {
        guard let reminded = sheet.remindedAt?.date,
              reminded <= sheet.startedAt.date.addingTimeInterval(reminderTolerance) else { return nil }
        return reminded
    }

    /// The badges, each earned at most once.
    enum Badge: String, CaseIterable, Sendable {
        case firstSheet = "first-sheet"
        case sheets10 = "sheets-10", sheets50 = "sheets-50", sheets100 = "sheets-100"
        case streak3 = "streak-3", streak7 = "streak-7", streak30 = "streak-30"
        case onTime10 = "on-time-10"

        /// Whether the figures reached so far earn this badge.
        func isEarned(counted: Int, onTime: Int, streak: Int) -> Bool {
            switch self {
            case .firstSheet: counted >= 1
            case .sheets10: counted >= 10
            case .sheets50: counted >= 50
            case .sheets100: counted >= 100
            case .streak3: streak >= 3
            case .streak7: streak >= 7
            case .streak30: streak >= 30
            case .onTime10: onTime >= 10
            }
        }
    }

    static let pointsPerSheet = 10
    static let onTimeBonus = 5
    static let onTimeWindow: TimeInterval = 3600
    static let maximumSheetsPerDay = 12
    /// The first points of levels 1, 2, …; the last is the highest level.
    static let levelThresholds = [0, 100, 250, 500, 1000, 2000, 4000]

    /// Started within the hour after its reminder, both ends included.
    static func isOnTime(_ sheet: Sheet) -> Bool {
        guard let remindedAt = sheet.remindedAt else { return false }
        let delay = sheet.startedAt.timeIntervalSince(remindedAt)
        return delay >= 0 && delay <= onTimeWindow
    }

    /// The level for `points` and the points where the next one starts (nil at the highest).
    static func level(points: Int) -> (level: Int, nextLevelAt: Int?) {
        let level = max(1, levelThresholds.filter { $0 <= points }.count)
        return (level, level < levelThresholds.count ? levelThresholds[level] : nil)
    }

    /// The status of one study from the person's completed Track Your Hearing sheets of it, in any order.
    public static func status(studyId: String, sheets: [Sheet]) -> RewardStatus {
        let ordered = sheets.sorted { ($0.finishedAt.date, $0.id.uuidString) < ($1.finishedAt.date, $1.id.uuidString) }
        var seen: Set<UUID> = []
        var perDay: [Int: Int] = [:]
        var days: Set<Int> = []
        var counted = 0, onTime = 0, longestStreak = 0
        var lastDay: Int?
        var badges: [RewardBadge] = []
        var remaining = Badge.allCases
        for sheet in ordered where seen.insert(sheet.id).inserted {
            let day = localDay(sheet.finishedAt)
            guard perDay[day, default: 0] < maximumSheetsPerDay else { continue }
            perDay[day, default: 0] += 1
            counted += 1
            if isOnTime(sheet) { onTime += 1 }
            days.insert(day)
            lastDay = day
            let streak = run(through: day, in: days)
            longestStreak = max(longestStreak, streak)
            // A badge reached is earned by this sheet; the rest wait.
            let earned = remaining.filter { $0.isEarned(counted: counted, onTime: onTime, streak: streak) }
            badges += earned.map { RewardBadge(id: $0.rawValue, earnedAt: sheet.finishedAt.text) }
            remaining.removeAll { earned.contains($0) }
        }
        let points = counted * pointsPerSheet + onTime * onTimeBonus
        let standing = level(points: points)
        return RewardStatus(studyId: studyId, points: points, level: standing.level, nextLevelAt: standing.nextLevelAt,
                            completed: counted, onTime: onTime,
                            currentStreak: lastDay.map { backwardRun(endingOn: $0, in: days) } ?? 0,
                            longestStreak: longestStreak, lastDay: lastDay.map(dateText), badges: badges)
    }

    /// Days since 1970-01-01 of the sheet's local date (in its own offset).
    static func localDay(_ time: OffsetTimestamp) -> Int {
        let seconds = Int(time.date.timeIntervalSince1970.rounded(.down)) + time.offsetSeconds
        return seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
    }

    /// `YYYY-MM-DD` of a day number.
    static func dateText(_ day: Int) -> String {
        String(OffsetTimestamp(Date(timeIntervalSince1970: Double(day) * 86_400), in: TimeZone(secondsFromGMT: 0)!).text.prefix(10))
    }

    /// Days in a row up to and including `day`.
    private static func backwardRun(endingOn day: Int, in days: Set<Int>) -> Int {
        var length = 0
        while days.contains(day - length) { length += 1 }
        return length
    }

    /// The whole run of consecutive days that contains `day` (a sheet from a day before others,
    /// e.g. after travelling west, can join two runs).
    private static func run(through day: Int, in days: Set<Int>) -> Int {
        var after = 0
        while days.contains(day + after + 1) { after += 1 }
        return backwardRun(endingOn: day, in: days) + after
    }
}
