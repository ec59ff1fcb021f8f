import Foundation
import Testing
@testable import TrackYourTinnitus
import UNITICore

@Suite("Reminder plan (thesis FR3, FR13)", .timeLimit(.minutes(10)))
struct ReminderPlanTests {
    @Test("standard reminders land inside each weekday's window, at least 15 minutes apart, exactly N a day, over many days and seeds")
    func plannedTimes() throws {
        for seed in [1, 2, 3, 99] as [UInt64] {
            var plan = ReminderPlan(count: 12, seed: seed)
            plan.days[2].window = try TimeWindow(parsing: "10:00-13:00")  // Wednesday: 12 need 165 minutes
            let rule = try #require(try plan.rule(tone: "chime"))
            var day = try LocalDate(parsing: "2026-01-05")  // a Monday
            for _ in 0..<120 {
                let times = try rule.cadence.times(on: day)
                #expect(times.count == 12)
                let window = plan.days[day.weekday.rawValue - 1].window
                #expect(times.allSatisfy { window.contains($0) })
                for (a, b) in zip(times, times.dropFirst()) { #expect(b.minutes - a.minutes >= 15) }
                day = day.adding(days: 1)
            }
        }
    }

    @Test("custom entries combine with the standard ones and are not skipped after a check-in")
    func combined() throws {
        var plan = ReminderPlan(count: 2, fixed: [FixedReminderTime(weekday: .monday, time: TimeOfDay(hour: 7, minute: 30))], seed: 5)
        plan.days[0].window = try TimeWindow(parsing: "09:00-12:00")
        let rule = try #require(try plan.rule(tone: String?.none))
        let times = try rule.cadence.times(on: try LocalDate(parsing: "2026-01-05"))
        #expect(times.count == 3)
        #expect(times.first == TimeOfDay(hour: 7, minute: 30))
        #expect(rule.skipWhenAnswered == false)
    }

    @Test("a count that does not fit is refused with the largest that fits, and the stored plan stays")
    func refusedCount() throws {
        let fixture = try TinnitusFixture()
        try ReminderPlan.change(fixture.context) { $0.count = 6 }
        try ReminderPlan.change(fixture.context) { $0.days[0].window = try TimeWindow(parsing: "08:00-10:00") }
        #expect(throws: UNITIError.self) { try ReminderPlan.change(fixture.context) { $0.count = 10 } }
        do {
            try ReminderPlan.change(fixture.context) { $0.count = 10 }
        } catch let error as UNITIError {
            #expect(error.message.contains("at most 9"))
        }
        #expect(try ReminderPlan.load(fixture.context).count == 6)
    }

    @Test("a window whose end is not after its start is refused, naming the largest count, and nothing changes")
    func refusedWindow() throws {
        let fixture = try TinnitusFixture()
        try ReminderPlan.change(fixture.context) { $0.count = 4 }
        let before = try ReminderPlan.load(fixture.context)
        do {
            try ReminderPlan.change(fixture.context) {
                $0.days[1].window = try TimeWindow(start: TimeOfDay(parsing: "12:00"), end: TimeOfDay(parsing: "09:00"))
            }
            Issue.record("the window was accepted")
        } catch let error as UNITIError {
            #expect(error.message.contains("57"))  // 08:00-22:00 holds 57 at 15 minutes
        }
        #expect(try ReminderPlan.load(fixture.context) == before)
    }

    @Test("clear removes only the standard reminders and resets the windows")
    func clear() throws {
        let fixture = try TinnitusFixture()
        try ReminderPlan.change(fixture.context) {
            $0.count = 5
            $0.days[4].window = try TimeWindow(parsing: "09:00-11:00")
            $0.fixed = [FixedReminderTime(weekday: .saturday, time: TimeOfDay(hour: 10, minute: 0))]
        }
        try NotifyCommand.Clear().run(in: fixture.context)
        let plan = try ReminderPlan.load(fixture.context)
        #expect(plan.count == 0)
        #expect(plan.days == DayWindow.week())
        #expect(plan.fixed.count == 1)
    }
}
