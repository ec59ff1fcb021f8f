import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

@Suite("Planning concrete reminders", .timeLimit(.minutes(10)))
struct ReminderPlannerTests {
    typealias F = ReminderFixtures
    let module = ModuleDescriptor(id: ModuleID(known: "rtm"), name: "ReminderTestModule", programName: "reminder-test", version: "1.0")

    func source(_ rules: [ReminderRule], answered: [(String, Date)] = []) -> ModuleReminderSource {
        ModuleReminderSource(module: module, source: ReminderSource(rules: rules) { questionnaire, period in
            answered.contains { $0.0 == questionnaire && $0.1 >= period.start && $0.1 < period.end }
        })
    }

    func fixedRule(_ id: String, _ times: [String], questionnaire: String? = nil) throws -> ReminderRule {
        let entries = times.flatMap { FixedReminderTime.everyDay(at: F.time($0)) }
        return try ReminderRule(id: id, questionnaireID: questionnaire, command: "rtm fill",
                                cadence: .daily(DailyReminders(fixed: entries)))
    }

    func localTimes(_ reminders: [PlannedReminder], in zone: TimeZone = F.berlin) -> [String] {
        reminders.map { "\(LocalDate($0.date, in: zone)) \(TimeOfDay(localTimeOf: $0.date, in: zone))" }
    }

    @Test("on the spring-forward day a time that does not exist moves forward; others keep their wall-clock time")
    func springForward() throws {
        let rule = try fixedRule("f", ["01:30", "02:00", "02:30", "03:00", "08:00"])
        let planner = ReminderPlanner(timeZone: F.berlin)
        let reminders = try planner.plan([source([rule])], from: F.date("2026-03-29 00:00"), to: F.date("2026-03-30 00:00"))
        // 02:00 and 02:30 do not exist in Berlin on 2026-03-29: they move forward by the hour skipped.
        // 02:00 becomes 03:00, the same instant as the 03:00 reminder, and is delivered once.
        #expect(localTimes(reminders) == ["2026-03-29 01:30", "2026-03-29 03:00", "2026-03-29 03:30", "2026-03-29 08:00"])
        #expect(reminders.map(\.date) == reminders.map(\.date).sorted())
        // 08:00 CEST is 06:00 UTC.
        #expect(ICalendarExport.utc(reminders.last!.date) == "20260329T060000Z")
    }

    @Test("on the fall-back day a repeated time is taken once, at its first occurrence")
    func fallBack() throws {
        let rule = try fixedRule("f", ["02:30", "08:00"])
        let reminders = try ReminderPlanner(timeZone: F.berlin).plan([source([rule])],
            from: F.date("2026-10-25 00:00"), to: F.date("2026-10-26 00:00"))
        #expect(reminders.count == 2)
        // 02:30 CEST (first occurrence) is 00:30 UTC; 08:00 CET is 07:00 UTC.
        #expect(reminders.map { ICalendarExport.utc($0.date) } == ["20261025T003000Z", "20261025T070000Z"])
    }

    @Test("random times across DST days stay inside the window on the wall clock")
    func randomTimesOnDSTDays() throws {
        for seed in 0..<200 as Range<UInt64> {
            let random = try RandomReminders(count: 10, days: DayWindow.week(F.window("08:00-22:00")), seed: seed)
            let rule = try ReminderRule(id: "r", command: "x", cadence: .daily(DailyReminders(random: random)))
            for day in ["2026-03-29", "2026-10-25"] {
                let reminders = try ReminderPlanner(timeZone: F.berlin).plan([source([rule])],
                    from: F.date("\(day) 00:00"), to: F.date("\(day) 23:59"))
                #expect(reminders.count == 10)
                for reminder in reminders {
                    let time = TimeOfDay(localTimeOf: reminder.date, in: F.berlin)
                    #expect(TimeWindow.standard.contains(time))
                    #expect(reminder.localTime == time)
                }
            }
        }
    }

    @Test("a reminder for a questionnaire answered in its period is skipped (day, week, month)")
    func answeredPeriodsAreSkipped() throws {
        let daily = try fixedRule("d", ["09:00", "18:00"], questionnaire: "daily")
        let weekly = try ReminderRule(id: "w", questionnaireID: "weekly", command: "x",
                                      cadence: .weekly(WeeklyReminder(weekday: .sunday, time: F.time("19:00"))))
        let monthly = try ReminderRule(id: "m", questionnaireID: "monthly", command: "x",
                                       cadence: .monthly(MonthlyReminder(day: 28, time: F.time("10:00"))))
        let answers = [
            ("daily", F.date("2026-11-24 07:00")),    // Tuesday: both of that day's reminders go
            ("weekly", F.date("2026-11-23 12:00")),   // Monday of the week of Sunday 29th
            ("monthly", F.date("2026-11-02 12:00")),  // November
        ]
        let reminders = try ReminderPlanner(timeZone: F.berlin).plan([source([daily, weekly, monthly], answered: answers)],
            from: F.date("2026-11-23 00:00"), to: F.date("2026-12-31 00:00"))
        let ids = Set(reminders.map(\.id))
        #expect(ids.contains("rtm/d/2026-11-23T09:00"))
        #expect(!ids.contains("rtm/d/2026-11-24T09:00"))
        #expect(!ids.contains("rtm/d/2026-11-24T18:00"))
        #expect(ids.contains("rtm/d/2026-11-25T09:00"))
        #expect(!ids.contains("rtm/w/2026-11-29T19:00"))
        #expect(ids.contains("rtm/w/2026-12-06T19:00"))
        #expect(!ids.contains("rtm/m/2026-11-28T10:00"))
        #expect(ids.contains("rtm/m/2026-12-28T10:00"))

        // A rule that asks for every prompt is not skipped.
        var every = daily
        every.skipWhenAnswered = false
        let all = try ReminderPlanner(timeZone: F.berlin).plan([source([every], answered: answers)],
            from: F.date("2026-11-24 00:00"), to: F.date("2026-11-25 00:00"))
        #expect(all.count == 2)
    }

    @Test("times are drawn afresh each day by default; the weekly pattern repeats them every week")
    func freshAndWeeklyPatterns() throws {
        let fresh = try RandomReminders(count: 4, seed: 11)
        var weekly = fresh
        weekly.pattern = .sameEachWeek
        let monday = try LocalDate(parsing: "2026-11-23")
        var freshDiffers = 0
        for week in 1...8 {
            let later = monday.adding(days: 7 * week)
            #expect(try weekly.times(on: later) == weekly.times(on: monday))
            if try fresh.times(on: later) != fresh.times(on: monday) { freshDiffers += 1 }
        }
        #expect(freshDiffers >= 7)
        // Planning the same day twice gives the same times (the shell and the daemon agree).
        #expect(try fresh.times(on: monday) == fresh.times(on: monday))
    }

    @Test("planning respects the requested range and sorts across modules' rules")
    func rangeAndOrder() throws {
        let a = try fixedRule("a", ["08:00", "20:00"])
        let b = try fixedRule("b", ["12:00"])
        let reminders = try ReminderPlanner(timeZone: F.utc).plan([source([a, b])],
            from: F.date("2026-11-23 08:00", in: F.utc), to: F.date("2026-11-24 08:00", in: F.utc))
        #expect(localTimes(reminders, in: F.utc) == ["2026-11-23 08:00", "2026-11-23 12:00", "2026-11-23 20:00"])
        #expect(reminders.map(\.command).allSatisfy { $0 == "rtm fill" })
    }
}
