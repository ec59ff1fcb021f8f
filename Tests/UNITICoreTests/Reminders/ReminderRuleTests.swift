import Foundation
import Testing
@testable import UNITICore

@Suite("Reminder rules: editing, fixed and random, weekly and monthly, locks", .timeLimit(.minutes(10)))
struct ReminderRuleTests {
    typealias F = ReminderFixtures

    func dailyRule(count: Int = 6, window: String = "08:00-22:00", fixed: [FixedReminderTime] = []) throws -> ReminderRule {
        let random = try RandomReminders(count: count, days: DayWindow.week(F.window(window)), seed: 42)
        return try ReminderRule(id: "daily", questionnaireID: "q", command: "rtm fill",
                                cadence: .daily(DailyReminders(random: random, fixed: fixed)))
    }

    @Test("an infeasible count is refused, names the largest that fits, and leaves the rule unchanged")
    func infeasibleCountChangesNothing() throws {
        // Property over many windows and counts: every refusal leaves the rule as it was.
        let meta = SeededRandomSource(seed: 99)
        for _ in 0..<1000 {
            let start = meta.integer(in: 0...1200)
            let length = meta.integer(in: 1...(1439 - start))
            let window = try TimeWindow(start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + length))
            var random = try RandomReminders(count: 1, days: DayWindow.week(window), seed: meta.nextUInt64())
            let before = random
            let capacity = window.capacity(minimumGap: 15)
            let error = #expect(throws: UNITIError.self) { try random.setCount(capacity + meta.integer(in: 1...5)) }
            #expect(error?.message.contains("at most \(capacity) fit") == true)
            #expect(random == before)
            try random.setCount(capacity)
            #expect(random.count == capacity)
        }
    }

    @Test("shrinking one weekday's window below what the count needs is refused without change")
    func windowTooSmallForCount() throws {
        var rule = try dailyRule(count: 6)
        let before = rule
        #expect(throws: UNITIError.self) {
            try rule.editDaily { try $0.random?.setWindow(F.window("08:00-08:30"), on: .wednesday) }
        }
        #expect(rule == before)
        // A disabled day does not limit the count.
        try rule.editDaily { try $0.random?.setEnabled(false, on: .wednesday) }
        try rule.editDaily { try $0.random?.setWindow(F.window("08:00-08:30"), on: .wednesday) }
        #expect(try rule.cadence.times(on: LocalDate(parsing: "2026-11-25")).isEmpty)  // a Wednesday
    }

    @Test("fixed entries are unique and combine with random times without duplicates")
    func fixedAndRandomCombine() throws {
        var daily = try DailyReminders(fixed: [FixedReminderTime(weekday: .monday, time: F.time("09:00"))])
        let error = #expect(throws: UNITIError.self) { try daily.add(FixedReminderTime(weekday: .monday, time: F.time("09:00"))) }
        #expect(error?.message.contains("already") == true)
        #expect(daily.fixed.count == 1)
        #expect(throws: UNITIError.self) { try DailyReminders(fixed: FixedReminderTime.everyDay(at: F.time("07:00")) + [FixedReminderTime(weekday: .sunday, time: F.time("07:00"))]) }

        // A window so tight that random times must land on the fixed ones: still no duplicates.
        let monday = try LocalDate(parsing: "2026-11-23")
        for seed in 0..<300 as Range<UInt64> {
            let random = try RandomReminders(count: 3, days: DayWindow.week(F.window("09:00-09:30")), seed: seed)
            let combined = try DailyReminders(random: random, fixed: [
                FixedReminderTime(weekday: .monday, time: F.time("09:00")),
                FixedReminderTime(weekday: .monday, time: F.time("12:00")),
            ])
            let times = try combined.times(on: monday)
            #expect(Set(times).count == times.count)
            #expect(times.contains(F.time("09:00")) && times.contains(F.time("12:00")))
            #expect(times == times.sorted())
            #expect(times.count >= 3)  // 12:00 plus at least the three random times merged with 09:00
        }
        // Fixed entries of other weekdays do not appear.
        let fixedOnly = try DailyReminders(fixed: [FixedReminderTime(weekday: .tuesday, time: F.time("10:00"))])
        #expect(try fixedOnly.times(on: monday).isEmpty)
    }

    @Test("weekly and monthly rules have exactly one reminder whose time may change")
    func weeklyAndMonthly() throws {
        var weekly = try ReminderRule(id: "w", questionnaireID: "weekly", command: "rtm fill",
                                      cadence: .weekly(WeeklyReminder(weekday: .friday, time: F.time("18:00"))))
        let start = try LocalDate(parsing: "2026-01-01")
        var count = 0
        for n in 0..<365 {
            let times = try weekly.cadence.times(on: start.adding(days: n))
            #expect(times.count <= 1)
            if !times.isEmpty {
                #expect(start.adding(days: n).weekday == .friday)
                count += 1
            }
        }
        #expect(count == 52)
        try weekly.setSingleTime(F.time("19:30"))
        #expect(weekly.cadence == .weekly(WeeklyReminder(weekday: .friday, time: F.time("19:30"))))
        // A second reminder cannot be added to a weekly rule.
        #expect(throws: UNITIError.self) { try weekly.editDaily { _ in } }

        let monthly = try ReminderRule(id: "m", questionnaireID: "monthly", command: "rtm fill",
                                       cadence: .monthly(MonthlyReminder(day: 31, time: F.time("10:00"))))
        var days: [String] = []
        for n in 0..<365 where !(try monthly.cadence.times(on: start.adding(days: n))).isEmpty {
            days.append(start.adding(days: n).description)
        }
        #expect(days.count == 12)
        #expect(days.contains("2026-02-28") && days.contains("2026-04-30") && days.contains("2026-01-31"))
        #expect(throws: UNITIError.self) { try MonthlyReminder(day: 32, time: F.time("10:00")) }

        var daily = try dailyRule()
        #expect(throws: UNITIError.self) { try daily.setSingleTime(F.time("10:00")) }
    }

    @Test("a schedule locked by a study refuses every change with its reason")
    func lockedSchedule() throws {
        var rule = try dailyRule()
        rule.lockReason = "study uniti-mobile fixes this schedule"
        let before = rule
        let error = #expect(throws: UNITIError.self) { try rule.editDaily { try $0.random?.setCount(2) } }
        #expect(error?.message.contains("study uniti-mobile fixes this schedule") == true)
        var weekly = try ReminderRule(id: "w", command: "x", cadence: .weekly(WeeklyReminder(weekday: .monday, time: F.time("08:00"))),
                                      lockReason: "locked by the study")
        #expect(throws: UNITIError.self) { try weekly.setSingleTime(F.time("09:00")) }
        #expect(rule == before)
    }

    @Test("Track Your Hearing limits: 1–12 a day, windows of at least four hours, weekday toggles, sound")
    func hearingLimits() throws {
        for bad in [0, 13, -1] {
            let error = #expect(throws: UNITIError.self) { try ReminderLimits(maximumPerDay: bad) }
            #expect(error?.message.contains("choose 1 to 12") == true)
        }
        let shortWindow = DayWindow(weekday: .monday, window: F.window("09:00-12:59"))
        let error = #expect(throws: UNITIError.self) { try ReminderLimits(days: [shortWindow]) }
        #expect(error?.message.contains("shorter than 4 hours") == true)
        #expect(throws: Never.self) { try ReminderLimits(days: [DayWindow(weekday: .monday, window: F.window("09:00-13:00"))]) }

        let limits = try ReminderLimits(maximumPerDay: 12, sound: false).setting(false, on: .sunday)
        #expect(throws: UNITIError.self) { try limits.setting(F.window("10:00-11:00"), on: .monday) }
        let rule = try limits.rule(id: "tyh", questionnaireID: "hearing", command: "tyh fill", tone: nil, seed: 5)
        #expect(rule.sound == false)
        let monday = try LocalDate(parsing: "2026-11-23")
        #expect(try rule.cadence.times(on: monday).count == 12)
        #expect(try rule.cadence.times(on: monday.adding(days: 6)).isEmpty)  // Sunday switched off
        // Every 1...12 fits into every window of at least four hours.
        for count in 1...12 {
            for start in stride(from: 0, through: 1439 - 240, by: 37) {
                let window = try TimeWindow(start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: start + 240))
                #expect(throws: Never.self) {
                    try ReminderLimits(maximumPerDay: count, days: DayWindow.week(window)).rule(id: "x", questionnaireID: nil, command: "x", tone: nil, seed: 1)
                }
            }
        }
    }

    @Test("rules survive a round trip through the module's settings; invalid stored rules are refused")
    func rulesRoundTripThroughJSON() throws {
        let rule = try dailyRule(fixed: [FixedReminderTime(weekday: .monday, time: F.time("07:15"))])
        let data = try JSONEncoder().encode([rule])
        #expect(try JSONDecoder().decode([ReminderRule].self, from: data) == [rule])
        let broken = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"count\":6", with: "\"count\":600")
        #expect(throws: UNITIError.self) { try JSONDecoder().decode([ReminderRule].self, from: Data(broken.utf8)) }
    }
}

@Suite("Track Your Stress: one planner per questionnaire", .timeLimit(.minutes(10)))
struct QuestionnaireReminderPlanTests {
    typealias F = ReminderFixtures
    let monday = LocalDate(year: 2026, month: 11, day: 23)

    @Test("daily random: the amount on each enabled weekday inside its own window, none on a disabled day")
    func dailyRandom() throws {
        var days = DayWindow.week(F.window("09:00-12:00"))
        days[1].isEnabled = false                       // Tuesday off
        days[5].window = F.window("10:00-20:00")        // Saturday later
        let rule = try QuestionnaireReminderPlan(questionnaireID: "stress-daily", command: "tys fill stress-daily",
                                                 frequency: .daily, option: .random(amount: 3), days: days)
            .rule(random: SeededRandomSource(seed: 4))
        for offset in 0..<14 {
            let date = monday.adding(days: offset)
            let times = try rule.cadence.times(on: date)
            let day = days[date.weekday.rawValue - 1]
            #expect(times.count == (day.isEnabled ? 3 : 0))
            #expect(times.allSatisfy(day.window.contains))
        }
        // Asking for more than fit refuses, naming what fits in the tightest window (3 h: 13).
        #expect(throws: UNITIError.self) {
            try QuestionnaireReminderPlan(questionnaireID: "q", command: "c", frequency: .daily, option: .random(amount: 14),
                                          days: days).rule(random: SeededRandomSource(seed: 1))
        }
    }

    @Test("daily fixed: the same times on each enabled day; a repeated time is refused")
    func dailyFixed() throws {
        var days = DayWindow.week()
        days[6].isEnabled = false  // Sunday off
        let rule = try QuestionnaireReminderPlan(questionnaireID: "q", command: "tys fill q", frequency: .daily,
                                                 option: .fixed([F.time("08:00"), F.time("20:00")]), days: days)
            .rule(random: SeededRandomSource(seed: 1))
        #expect(try rule.cadence.times(on: monday) == [F.time("08:00"), F.time("20:00")])
        #expect(try rule.cadence.times(on: monday.adding(days: 6)).isEmpty)
        #expect(throws: UNITIError.self) {
            try QuestionnaireReminderPlan(questionnaireID: "q", command: "c", frequency: .daily,
                                          option: .fixed([F.time("08:00"), F.time("08:00")])).rule(random: SeededRandomSource(seed: 1))
        }
    }

    @Test("weekly and monthly questionnaires get one reminder; a locked plan refuses changes")
    func weeklyMonthlyLocked() throws {
        var weekly = try QuestionnaireReminderPlan(questionnaireID: "w", command: "tys fill w", frequency: .weekly(.sunday),
                                                   time: F.time("17:00"), lockReason: "the study sets this time")
            .rule(random: SeededRandomSource(seed: 1))
        #expect(try (0..<7).flatMap { try weekly.cadence.times(on: monday.adding(days: $0)) } == [F.time("17:00")])
        let error = #expect(throws: UNITIError.self) { try weekly.setSingleTime(F.time("18:00")) }
        #expect(error?.message.contains("the study sets this time") == true)
        let monthly = try QuestionnaireReminderPlan(questionnaireID: "m", command: "tys fill m", frequency: .monthly(day: 15))
            .rule(random: SeededRandomSource(seed: 1))
        #expect(try (0..<31).flatMap { try monthly.cadence.times(on: LocalDate(year: 2026, month: 12, day: 1).adding(days: $0)) }.count == 1)
    }
}

@Suite("Stored form of rules", .timeLimit(.minutes(10)))
struct ReminderRuleCodingTests {
    @Test("cadences are stored under their kind's name and read back; a bad month day is refused")
    func cadenceCoding() throws {
        let weekly = ReminderCadence.weekly(WeeklyReminder(weekday: .friday, time: TimeOfDay(hour: 18, minute: 0)))
        let text = String(decoding: try JSONEncoder().encode(weekly), as: UTF8.self)
        #expect(text.contains("\"weekly\"") && text.contains("\"18:00\"") && !text.contains("_0"))
        #expect(try JSONDecoder().decode(ReminderCadence.self, from: Data(text.utf8)) == weekly)
        let badMonth = #"{"monthly":{"day":40,"time":"10:00"}}"#
        #expect(throws: UNITIError.self) { try JSONDecoder().decode(ReminderCadence.self, from: Data(badMonth.utf8)) }
        let badTime = #"{"weekly":{"weekday":5,"time":"25:00"}}"#
        #expect(throws: UNITIError.self) { try JSONDecoder().decode(ReminderCadence.self, from: Data(badTime.utf8)) }
    }
}
