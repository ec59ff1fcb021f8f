/// Payloads of `GET /api/v1/rewards` (Track Your Hearing FR11, which the thesis left unbuilt):
/// the person's rewards per study that turns rewards on, computed by the study server from the
/// answer sheets it has received, so they follow the person to every device and cannot be
/// raised by editing a device's database.
///
/// The rules (documented for participants in `Modules/TrackYourHearing/README.md`) reward
/// answering, never particular answers: points for each completed sheet (a bonus when it was
/// started within an hour of the reminder that prompted it), at most twelve counted sheets per
/// day, streaks of days with at least one sheet, levels by points and badges at milestones.

/// One badge the person earned.
public struct RewardBadge: Codable, Hashable, Sendable {
    /// Stable id, e.g. `first-sheet`, `streak-7`, `sheets-50`.
    public var id: String
    /// When the sheet that earned it was finished (ISO 8601 with the person's offset).
    public var earnedAt: String

    public init(id: String, earnedAt: String) {
        self.id = id
        self.earnedAt = earnedAt
    }
}

/// The person's rewards in one study.
public struct RewardStatus: Codable, Hashable, Sendable {
    public var studyId: String
    public var points: Int
    /// 1 and up, from the points.
    public var level: Int
    /// The points at which the next level starts (nil at the highest level).
    public var nextLevelAt: Int?
    /// Completed sheets counted for rewards, and how many of them were on time.
    public var completed: Int
    public var onTime: Int
    /// Days in a row, up to the person's last sheet's day, with at least one sheet; and the
    /// longest such run.
    public var currentStreak: Int
    public var longestStreak: Int
    /// The local date (`YYYY-MM-DD`, the person's offset) of the last counted sheet.
    public var lastDay: String?
    public var badges: [RewardBadge]

    public init(studyId: String, points: Int, level: Int, nextLevelAt: Int?, completed: Int, onTime: Int,
                currentStreak: Int, longestStreak: Int, lastDay: String?, badges: [RewardBadge]) {
        self.studyId = studyId
        self.points = points
        self.level = level
        self.nextLevelAt = nextLevelAt
        self.completed = completed
        self.onTime = onTime
        self.currentStreak = currentStreak
        self.longestStreak = longestStreak
        self.lastDay = lastDay
        self.badges = badges
    }
}

/// `GET /api/v1/rewards`: one entry per joined study with rewards on (none: an empty list).
public struct RewardList: Codable, Hashable, Sendable {
    public var studies: [RewardStatus]
    public init(studies: [RewardStatus]) { self.studies = studies }
}
