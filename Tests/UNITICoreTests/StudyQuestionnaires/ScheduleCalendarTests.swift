import Foundation
import Testing
import UNITICore
import UNITIProtocol

@Suite("Schedule calendar (Track Your Stress thesis 5.3.3.1)", .timeLimit(.minutes(10)))
struct ScheduleCalendarTests {
    static let joined = LocalDate(year: 2026, month: 11, day: 18)  // a Wednesday

    static func date(_ text: String) -> LocalDate {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        return LocalDate(year: parts[0], month: parts[1], day: parts[2])
    }

    @Test("a daily schedule runs from day startOnDay after joining, asks amount answers per day, ends on its end date")
    func daily() throws {
        let calendar = ScheduleCalendar(QuestionnaireSchedule(frequency: .daily, timing: .between, end: "2026-11-30",
                                                              amount: 3, startOnDay: 2), joinedOn: Self.joined)
        #expect(calendar.firstDay == (Self.date("2026-11-20")))
        #expect(calendar.amount == 3)
        #expect(calendar.phase(on: Self.date("2026-11-19")) == .notStarted(Self.date("2026-11-20")))
        #expect(calendar.phase(on: Self.date("2026-11-20")) == .running)
        #expect(calendar.phase(on: Self.date("2026-11-30")) == .running)
        #expect(calendar.phase(on: Self.date("2026-12-01")) == .ended(Self.date("2026-11-30")))
        let period = try #require(calendar.activePeriod(containing: Self.date("2026-11-25")))
        #expect(period.start == (Self.date("2026-11-25")) && period.end == (Self.date("2026-11-26")))
    }

    @Test("a start date after joining wins over the join day; before it, the join day wins")
    func startDate() throws {
        let later = ScheduleCalendar(QuestionnaireSchedule(frequency: .daily, timing: .between, start: "2026-12-01"), joinedOn: Self.joined)
        #expect(later.firstDay == (Self.date("2026-12-01")))
        let earlier = ScheduleCalendar(QuestionnaireSchedule(frequency: .daily, timing: .between, start: "2026-01-01"), joinedOn: Self.joined)
        #expect(earlier.firstDay == Self.joined)
    }

    @Test("weekly periods run Monday to Sunday, the first one clipped to the first day")
    func weekly() throws {
        let calendar = ScheduleCalendar(QuestionnaireSchedule(frequency: .weekly, timing: .between), joinedOn: Self.joined)
        let first = try #require(calendar.activePeriod(containing: Self.date("2026-11-22")))
        #expect(first.start == Self.joined && first.end == (Self.date("2026-11-23")))
        let second = try #require(calendar.activePeriod(containing: Self.date("2026-11-26")))
        #expect(second.start == (Self.date("2026-11-23")) && second.end == (Self.date("2026-11-30")))
    }

    @Test("monthly periods are calendar months; every 2 skips every other month")
    func monthlyEveryOther() throws {
        let calendar = ScheduleCalendar(QuestionnaireSchedule(frequency: .monthly, timing: .between, every: 2), joinedOn: Self.joined)
        #expect(calendar.isActive(on: Self.date("2026-11-30")))
        #expect(!calendar.isActive(on: Self.date("2026-12-15")))
        #expect(calendar.isActive(on: Self.date("2027-01-01")))
        #expect(calendar.nextActiveDay(onOrAfter: Self.date("2026-12-15")) == (Self.date("2027-01-01")))
        let january = try #require(calendar.activePeriod(containing: Self.date("2027-01-20")))
        #expect(january.start == (Self.date("2027-01-01")) && january.end == (Self.date("2027-02-01")))
    }

    @Test("a fixed schedule runs on its one date only; a person who joins after it never gets it")
    func fixed() throws {
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .fixed, at: "2026-11-25")
        let calendar = ScheduleCalendar(schedule, joinedOn: Self.joined)
        #expect(calendar.phase(on: Self.date("2026-11-24")) == .notStarted(Self.date("2026-11-25")))
        #expect(calendar.isActive(on: Self.date("2026-11-25")))
        #expect(calendar.phase(on: Self.date("2026-11-26")) == .ended(Self.date("2026-11-25")))
        let late = ScheduleCalendar(schedule, joinedOn: Self.date("2026-11-27"))
        #expect(late.phase(on: Self.date("2026-11-27")) == .ended(Self.date("2026-11-25")))
    }

    @Test("reminder rules limited to a schedule's days fall only on those days")
    func remindersFollowTheCalendar() throws {
        let calendar = ScheduleCalendar(QuestionnaireSchedule(frequency: .daily, timing: .between, end: "2026-11-21",
                                                              startOnDay: 1), joinedOn: Self.joined)
        var rule = try ReminderRule(id: "q", questionnaireID: "q", command: "tys fill q",
                                    cadence: .daily(DailyReminders(fixed: Weekday.allCases.map {
                                        FixedReminderTime(weekday: $0, time: TimeOfDay(hour: 9, minute: 0))
                                    })))
        rule.activeDays = calendar
        let zone = TimeZone(identifier: "UTC")!
        let planned = try ReminderPlanner(timeZone: zone).plan(
            ModuleReminderSource(module: ModuleDescriptor(.tys, version: "1"), source: ReminderSource(rules: [rule])),
            from: Self.joined.startInstant(in: zone), to: Self.joined.adding(days: 7).startInstant(in: zone))
        #expect(planned.map(\.localDate) == [Self.date("2026-11-19"), Self.date("2026-11-20"), Self.date("2026-11-21")])
    }
}
