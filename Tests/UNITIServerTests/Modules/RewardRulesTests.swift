import Foundation
import Testing
import UNITIProtocol
@testable import TrackYourHearingServer

/// A sheet finished at `finished` (ISO 8601 with offset), started five minutes before; its reminder
/// `remindedBeforeStart` seconds before the start (negative: after it), or none.
private func rewardSheet(_ finished: String, remindedBeforeStart: TimeInterval? = nil, id: UUID = UUID()) -> RewardRules.Sheet {
    let finishedAt = OffsetTimestamp(parsing: finished)!
    let startedAt = finishedAt.date.addingTimeInterval(-300)
    return RewardRules.Sheet(id: id, finishedAt: finishedAt, startedAt: startedAt,
                             remindedAt: remindedBeforeStart.map { startedAt.addingTimeInterval(-$0) })
}

/// `count` sheets a day for `days` days from `first` (a `YYYY-MM-DD`), hourly from 10:00 at +01:00, all on time.
private func dailySheets(from first: String, days: Int, perDay count: Int) -> [RewardRules.Sheet] {
    let start = OffsetTimestamp(parsing: "\(first)T10:00:00+01:00")!.date
    let zone = TimeZone(secondsFromGMT: 3600)!
    return (0..<days).flatMap { day in
        (0..<count).map { hour in
            let time = start.addingTimeInterval(Double(day) * 86_400 + Double(hour) * 3600)
            return rewardSheet(OffsetTimestamp(time, in: zone).text, remindedBeforeStart: 600)
        }
    }
}

@Suite("Reward rules", .timeLimit(.minutes(10)))
struct RewardRulesTests {
    @Test("no sheets: no points, level 1 with the next at 100, no streak, no badge")
    func nothingYet() {
        let status = RewardRules.status(studyId: "s", sheets: [])
        #expect(status == RewardStatus(studyId: "s", points: 0, level: 1, nextLevelAt: 100, completed: 0, onTime: 0,
                                       currentStreak: 0, longestStreak: 0, lastDay: nil, badges: []))
    }

    @Test("a sheet started 0 s or 3600 s after its reminder is on time; 3601 s after, before the reminder, or without one it is not")
    func onTimeWindowEdges() {
        #expect(RewardRules.isOnTime(rewardSheet("2027-01-15T10:00:00+01:00", remindedBeforeStart: 0)))
        #expect(RewardRules.isOnTime(rewardSheet("2027-01-15T10:00:00+01:00", remindedBeforeStart: 3600)))
        #expect(!RewardRules.isOnTime(rewardSheet("2027-01-15T10:00:00+01:00", remindedBeforeStart: 3601)))
        #expect(!RewardRules.isOnTime(rewardSheet("2027-01-15T10:00:00+01:00", remindedBeforeStart: -1)))
        #expect(!RewardRules.isOnTime(rewardSheet("2027-01-15T10:00:00+01:00")))
    }

    @Test("each sheet earns 10 points and an on-time one 5 more")
    func points() {
        let sheets = [0, 3600, 3601, -1, nil].enumerated().map { index, delay in
            rewardSheet("2027-01-15T1\(index):00:00+01:00", remindedBeforeStart: delay.map(TimeInterval.init))
        }
        let status = RewardRules.status(studyId: "s", sheets: sheets)
        #expect(status.completed == 5)
        #expect(status.onTime == 2)
        #expect(status.points == 5 * 10 + 2 * 5)
    }

    @Test("at most 12 sheets count per local day: the 13th earns nothing, not even its bonus; the next local day counts again")
    func twelvePerDay() {
        let day = dailySheets(from: "2027-01-15", days: 1, perDay: 13) // 10:00 … 22:00 +01:00
        // 00:30 +01:00 is still the 15th in UTC, but the person's next day.
        let nextLocalDay = rewardSheet("2027-01-16T00:30:00+01:00", remindedBeforeStart: 0)
        let status = RewardRules.status(studyId: "s", sheets: day + [nextLocalDay])
        #expect(status.completed == 13)
        #expect(status.onTime == 13)
        #expect(status.points == 13 * 15)
        #expect(status.lastDay == "2027-01-16")
        #expect(status.currentStreak == 2)
    }

    @Test("a streak runs across a month end; current is the run ending on the last sheet's day, longest the longest run")
    func streaksAcrossMonthEnd() {
        let days = ["2027-01-29", "2027-01-30", "2027-01-31", "2027-02-01", "2027-02-10", "2027-02-11"]
        let status = RewardRules.status(studyId: "s", sheets: days.map { rewardSheet("\($0)T20:00:00+01:00") })
        #expect(status.longestStreak == 4)
        #expect(status.currentStreak == 2)
        #expect(status.lastDay == "2027-02-11")
        #expect(status.badges.map(\.id) == ["first-sheet", "streak-3"])
        #expect(status.badges.last?.earnedAt == "2027-01-31T20:00:00+01:00")
    }

    @Test("local days are those of each sheet's own UTC offset: late evenings at -05:00 are three days, not the UTC days")
    func dayInOwnOffset() {
        // In UTC these are 03-01, 03-02 and 03-02 again: a streak of 2. Where the person lives: 02-28, 03-01, 03-02.
        let sheets = ["2027-02-28T23:30:00-05:00", "2027-03-01T23:30:00-05:00", "2027-03-02T08:00:00-05:00"].map { rewardSheet($0) }
        let status = RewardRules.status(studyId: "s", sheets: sheets)
        #expect(status.currentStreak == 3)
        #expect(status.longestStreak == 3)
        #expect(status.lastDay == "2027-03-02")
        #expect(status.badges.first { $0.id == "streak-3" }?.earnedAt == "2027-03-02T08:00:00-05:00")
    }

    @Test("the current streak is the run ending on the last sheet's day even when shorter than the longest")
    func currentVersusLongest() {
        let long = dailySheets(from: "2027-05-01", days: 8, perDay: 1)
        let later = [rewardSheet("2027-05-20T12:00:00+01:00")]
        let status = RewardRules.status(studyId: "s", sheets: long + later)
        #expect(status.longestStreak == 8)
        #expect(status.currentStreak == 1)
        #expect(status.badges.map(\.id) == ["first-sheet", "streak-3", "streak-7"])
    }

    @Test("levels start at 0, 100, 250, 500, 1000, 2000 and 4000 points; the highest has no next level")
    func levels() {
        let expected: [(Int, Int, Int?)] = [(0, 1, 100), (99, 1, 100), (100, 2, 250), (249, 2, 250), (250, 3, 500),
                                            (500, 4, 1000), (999, 4, 1000), (1000, 5, 2000), (2000, 6, 4000),
                                            (3999, 6, 4000), (4000, 7, nil), (12_345, 7, nil)]
        for (points, level, next) in expected {
            let result = RewardRules.level(points: points)
            #expect(result.level == level, "level at \(points) points")
            #expect(result.nextLevelAt == next, "next level at \(points) points")
        }
        let status = RewardRules.status(studyId: "s", sheets: (0..<10).map { rewardSheet("2027-01-1\($0)T09:00:00+01:00") })
        #expect(status.points == 100)
        #expect(status.level == 2)
        #expect(status.nextLevelAt == 250)
    }

    @Test("every badge is earned once, by the sheet that reaches it, at that sheet's finishing time with its offset")
    func badgesOnce() {
        // Three on-time sheets a day (10:00, 11:00, 12:00 +01:00) for 34 days from 2027-01-10, across the month end.
        let sheets = dailySheets(from: "2027-01-10", days: 34, perDay: 3)
        let status = RewardRules.status(studyId: "s", sheets: sheets)
        #expect(status.completed == 102)
        #expect(status.points == 102 * 15)
        #expect(status.level == 5)
        #expect(status.currentStreak == 34)
        let earned = Dictionary(uniqueKeysWithValues: status.badges.map { ($0.id, $0.earnedAt) })
        #expect(earned.count == status.badges.count)
        #expect(earned == [
            "first-sheet": "2027-01-10T10:00:00+01:00",
            "sheets-10": "2027-01-13T10:00:00+01:00",  // the 10th sheet: first of day 4
            "on-time-10": "2027-01-13T10:00:00+01:00",
            "streak-3": "2027-01-12T10:00:00+01:00",   // first sheet of day 3
            "streak-7": "2027-01-16T10:00:00+01:00",
            "sheets-50": "2027-01-26T11:00:00+01:00",  // 50 = 16 days × 3 + 2
            "streak-30": "2027-02-08T10:00:00+01:00",
            "sheets-100": "2027-02-12T10:00:00+01:00", // 100 = 33 days × 3 + 1
        ])
        #expect(status.badges.map(\.id) == ["first-sheet", "streak-3", "sheets-10", "on-time-10", "streak-7", "sheets-50",
                                            "streak-30", "sheets-100"])
    }

    @Test("two sheets with the same id count once")
    func sameIdOnce() {
        let id = UUID()
        let status = RewardRules.status(studyId: "s", sheets: [rewardSheet("2027-01-15T10:00:00+01:00", id: id),
                                                               rewardSheet("2027-01-16T10:00:00+01:00", id: id)])
        #expect(status.completed == 1)
        #expect(status.points == 10)
        #expect(status.badges.map(\.id) == ["first-sheet"])
    }

    @Test("the order the sheets are given in does not matter")
    func orderIndependent() {
        let sheets = dailySheets(from: "2027-01-10", days: 5, perDay: 14)
        #expect(RewardRules.status(studyId: "s", sheets: sheets) == RewardRules.status(studyId: "s", sheets: sheets.reversed()))
    }
}
