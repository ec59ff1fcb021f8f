import Foundation
import Testing
@testable import UNITICore

/// Figures for the report, not assertions on time: run with
/// `UNITI_BENCH=1 swift test -c release --filter ReminderAndChartBenchmarks`.
/// Skipped in the normal test run.
@Suite("Benchmarks (UNITI_BENCH=1)", .enabled(if: ProcessInfo.processInfo.environment["UNITI_BENCH"] != nil), .timeLimit(.minutes(10)))
struct ReminderAndChartBenchmarks {
    static func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<runs { times.append(try clock.measure(body)) }
        return times.sorted()[runs / 2]
    }

    /// Five questionnaires with the rules of the theses.
    static func fiveQuestionnaires() throws -> [ReminderRule] {
        let tyt = try RandomReminders(count: 6, seed: 1)
        let tys = try RandomReminders(count: 3, days: DayWindow.week(TimeWindow(parsing: "09:00-21:00")), seed: 2)
        return [
            try ReminderRule(id: "tyt", questionnaireID: "tyt-ema", command: "tyt fill", cadence: .daily(DailyReminders(
                random: tyt, fixed: [FixedReminderTime(weekday: .sunday, time: TimeOfDay(hour: 20, minute: 0))])),
                skipWhenAnswered: false),
            try ReminderRule(id: "tys-daily", questionnaireID: "tys-daily", command: "tys fill daily", cadence: .daily(DailyReminders(random: tys))),
            try ReminderLimits(maximumPerDay: 12).rule(id: "tyh", questionnaireID: "tyh-ema", command: "tyh fill", tone: "chime", seed: 3),
            try ReminderRule(id: "tys-weekly", questionnaireID: "tys-weekly", command: "tys fill weekly",
                             cadence: .weekly(WeeklyReminder(weekday: .sunday, time: TimeOfDay(hour: 18, minute: 0)))),
            try ReminderRule(id: "tys-monthly", questionnaireID: "tys-monthly", command: "tys fill monthly",
                             cadence: .monthly(MonthlyReminder(day: 1, time: TimeOfDay(hour: 10, minute: 0)))),
        ]
    }

    @Test("plan a year of reminders for five questionnaires")
    func planYear() throws {
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let rules = try Self.fiveQuestionnaires()
        let start = LocalDate(year: 2026, month: 1, day: 1).startInstant(in: zone)
        let end = LocalDate(year: 2027, month: 1, day: 1).startInstant(in: zone)
        let source = ModuleReminderSource(module: ModuleDescriptor(id: "bench", name: "Bench", programName: "b", version: "1"),
                                          source: ReminderSource(rules: rules) { _, _ in false })
        var count = 0
        let planner = ReminderPlanner(timeZone: zone)
        let time = try Self.median(5) { count = try planner.plan([source], from: start, to: end).count }
        print("BENCH plan 365 days, 5 questionnaires: \(count) reminders in \(time)")

        // The same through the service: rules read from a module's settings, answered lookups, log.
        let clock = FixedClock(start, timeZone: zone)
        let module = ReminderTestModule(rules: rules)
        let harness = try ReminderFixtures.harness(clock: clock, modules: [module])
        let services = harness.services
        try ReminderRuleStore().save(rules, ModuleContext(services: services, module: module.descriptor))
        let service = ReminderFixtures.service(module, services: services)
        let viaService = try Self.median(5) { count = try service.planned(from: start, to: end).count }
        print("BENCH plan 365 days via ReminderService (settings + answered lookups): \(count) reminders in \(viaService)")
        let ics = try Self.median(5) { _ = ICalendarExport().calendar(for: try service.planned(from: start, to: end), stamp: start) }
        print("BENCH plan + iCalendar export of the year: \(ics)")
        fflush(nil)
    }

    @Test("render 40,000 points as terminal chart and SVG")
    func render() throws {
        let points = ChartTests.yearOfRatings()
        let zone = ChartTests.zone
        let series = [ChartSeries(name: "loudness", points: points)]
        let x = try ChartAxis.fitting(series, vertical: false, format: .date(zone))
        let y = try ChartAxis(lower: 0, upper: 100)
        var lines: [String] = []
        let terminal = try Self.median(5) { lines = try TerminalChart(width: 80, height: 12).lines(series, x: x, y: y, title: "40,000 points") }
        print("BENCH terminal chart, 40,000 points, 80x12: \(terminal)")
        print(lines.joined(separator: "\n"))
        var svg = ""
        let svgTime = Self.median(5) { svg = SVGChart(title: "40,000 points").render(series, x: x, y: y) }
        print("BENCH SVG, 40,000 points: \(svgTime), \(svg.utf8.count) bytes")
        let reduced = try Self.median(5) {
            let daily = SeriesReduction.aggregate(points, by: .day, in: zone)
            lines = try TerminalChart(width: 80, height: 12).lines(
                SeriesReduction.series(daily, name: "daily mean", rangeNames: ("min", "max")), x: x, y: y, title: "daily mean and range")
        }
        print("BENCH aggregate per day + terminal chart: \(reduced)")
        print(lines.joined(separator: "\n"))
        let thin = Self.median(5) { _ = SeriesReduction.minMaxPerColumn(points, columns: 77) }
        print("BENCH min-max per column (77 columns): \(thin)")
        let bars = (0..<30).map { ChartPoint(x: ChartTests.start + Double($0) * 86_400, y: Double($0 % 7)) }
        print(try TerminalChart(width: 60, height: 5).columns(bars, x: ChartAxis(lower: bars[0].x, upper: bars[29].x, format: .date(zone)),
                                                             y: ChartAxis(lower: 0, upper: 6), title: "answers per day").joined(separator: "\n"))
        print(try TerminalChart(width: 50).bars([("pink noise", 42), ("rain", 12.5), ("forest", 3)]).joined(separator: "\n"))
        try svg.write(toFile: NSTemporaryDirectory() + "/uniti-bench.svg", atomically: true, encoding: .utf8)
        fflush(nil)  // the test runner may end the process before a piped stdout is flushed
    }
}
