import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: therapies (thesis FR10): the fourteen types, dates checked, grouped, ongoing marked", .timeLimit(.minutes(10)))
struct TherapyTests {
    @Test("one line with a short type key; the end may not lie before the start")
    func oneLine() throws {
        let fixture = try TNFixture()
        let result = fixture.run("tn therapy add --name 'Hearing aids both ears' --type hearing-aid --start 2026-03-01 --note 'helps in meetings'")
        #expect(result.succeeded, "\(result.err)")
        let therapy = try #require(try fixture.store.all(Therapy.self).first)
        #expect(therapy.type == .hearingAid && therapy.start == "2026-03-01" && therapy.end == nil && therapy.note == "helps in meetings")
        #expect(try fixture.harness.queuedRecords()["tn/therapy:\(therapy.id)"] != nil)
        let refused = fixture.run("tn therapy add --name TRT --type trt --start 2026-05-01 --end 2026-04-01")
        #expect(!refused.succeeded && refused.err.contains("The end (2026-04-01) lies before the start (2026-05-01)"))
        let unknown = fixture.run("tn therapy add --name X --type yoga --start 2026-05-01")
        #expect(!unknown.succeeded && unknown.err.contains("'yoga' is not a therapy type"))
        #expect(try fixture.store.all(Therapy.self).count == 1)
    }

    @Test("'tn therapy types' lists all fourteen keys with their names")
    func types() throws {
        let fixture = try TNFixture()
        let result = fixture.run("tn therapy types --json")
        let rows = try JSONDecoder().decode([[String: String]].self, from: Data(result.out.utf8))
        #expect(rows.count == 14)
        #expect(rows.contains(["key": "trt", "title": "tinnitus retraining therapy"]))
        #expect(rows.contains(["key": "tms", "title": "transcranial magnetic stimulation"]))
    }

    @Test("by questions: a type by number, an end before the start is refused and asked again")
    func prompts() throws {
        let fixture = try TNFixture(input: ["Cognitive behavioural therapy", "8", "2026-01-10", "2025-12-01", "2026-06-30", "fewer sleepless nights"])
        let result = fixture.run("tn therapy add")
        #expect(result.succeeded, "\(result.err)")
        #expect(result.err.contains("lies before the start"))
        let therapy = try #require(try fixture.store.all(Therapy.self).first)
        #expect(therapy.type == .psychotherapy && therapy.end == "2026-06-30" && therapy.note == "fewer sleepless nights")
    }

    @Test("listing: grouped by type by default, sortable by name and start, ongoing ones marked")
    func listing() throws {
        let fixture = try TNFixture()
        fixture.run("tn therapy add --name 'Masker' --type masker --start 2025-01-01 --end 2025-06-30")
        fixture.run("tn therapy add --name 'Betahistine' --type medical --start 2026-10-01")
        fixture.run("tn therapy add --name 'Aspirin trial' --type medical --start 2024-02-01 --end 2024-03-01")
        let grouped = fixture.run("tn therapies")
        #expect(grouped.succeeded, "\(grouped.err)")
        let lines = grouped.out.split(separator: "\n").map(String.init)
        let medical = try #require(lines.firstIndex { $0.hasPrefix("medical treatment (2)") })
        #expect(lines[medical + 1].contains("Betahistine") && lines[medical + 1].contains("● ongoing"))
        #expect(lines[medical + 2].contains("Aspirin trial") && !lines[medical + 2].contains("ongoing"))
        #expect(lines.contains { $0.hasPrefix("tinnitus masker or noiser (1)") })
        func names(_ line: String) throws -> [String] {
            try JSONDecoder().decode([TherapyRowJSON].self, from: Data(fixture.run(line + " --json").out.utf8)).map(\.name)
        }
        #expect(try names("tn therapies --sort name") == ["Aspirin trial", "Betahistine", "Masker"])
        #expect(try names("tn therapies --sort start") == ["Betahistine", "Masker", "Aspirin trial"])
        #expect(try names("tn therapies --ongoing") == ["Betahistine"])
    }

    @Test("editing the end keeps the id; '--end -' makes it ongoing again")
    func edit() throws {
        let fixture = try TNFixture()
        fixture.run("tn therapy add --name 'TRT' --type trt --start 2026-01-01 --end 2026-12-31")
        let id = try #require(try fixture.store.all(Therapy.self).first?.id)
        #expect(fixture.run("tn therapy edit \(id.prefix(5)) --end -").succeeded)
        #expect(try fixture.store.all(Therapy.self).map(\.end) == [nil])
        let refused = fixture.run("tn therapy edit \(id.prefix(5)) --end 2025-01-01")
        #expect(!refused.succeeded)
        #expect(try fixture.store.all(Therapy.self).map(\.end) == [nil])
        #expect(try fixture.store.all(Therapy.self).map(\.id) == [id])
    }

    struct TherapyRowJSON: Decodable { let id: String, name: String, ongoing: Bool }
}

@Suite("TinnitusNavigator: the month calendar (thesis outlook)", .timeLimit(.minutes(10)))
struct CalendarTests {
    @Test("November 2026 starts on a Sunday: six weeks, the 1st in the last column, the 30th on a Monday")
    func layout() {
        let grid = MonthGrid(year: 2026, month: 11)
        #expect(grid.weeks.count == 6)
        #expect(grid.weeks[0] == [nil, nil, nil, nil, nil, nil, 1])
        #expect(grid.weeks[5] == [30, nil, nil, nil, nil, nil, nil])
        #expect(MonthGrid(year: 2027, month: 2).weeks.count == 4)  // 1 Feb 2027 is a Monday, 28 days
        #expect(MonthGrid(year: 2024, month: 2).weeks.flatMap { $0 }.compactMap { $0 }.last == 29)
    }

    @Test("days with events are marked, today is bracketed, the month's events are listed below")
    func marks() throws {
        let fixture = try TNFixture()
        fixture.run("tn event add --title 'ENT' --at '2026-11-20 14:30' --type appointment")
        fixture.run("tn event add --title 'Attack' --at '2026-11-23 07:00' --type attack")
        fixture.run("tn event add --title 'Elsewhere' --at '2026-12-02 07:00' --type other")
        fixture.run("tn therapy add --name 'TRT' --type trt --start 2026-11-05 --end 2027-05-05")
        let result = fixture.run("tn calendar")
        #expect(result.succeeded, "\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("November 2026"))
        let week4 = try #require(lines.first { $0.contains("16") })
        #expect(week4.contains(" 20 *") && !week4.contains(" 19 *"))
        #expect(result.out.contains("[23]*"))
        #expect(result.out.contains("ENT") && result.out.contains("Attack") && !result.out.contains("Elsewhere"))
        #expect(result.out.contains("2026-11-05  therapy begins: TRT"))
        let december = fixture.run("tn calendar 2026-12")
        #expect(december.out.contains("Elsewhere") && !december.out.contains("[23]"))
        #expect(fixture.run("tn calendar 2026-13").err.contains("'2026-13' is not a month"))
    }
}

@Suite("TinnitusNavigator: reminders before a therapy ends and to keep the record up to date (outlook)", .timeLimit(.minutes(10)))
struct RecordReminderTests {
    func planned(_ fixture: TNFixture, days: Int = 40) throws -> [PlannedReminder] {
        let source = try RecordReminders(context: fixture.context).source()
        let planner = ReminderPlanner(timeZone: ModuleHarness.berlin)
        return try planner.plan([ModuleReminderSource(module: TinnitusNavigatorModule().descriptor, source: source)],
                                from: fixture.harness.clock.now, to: fixture.harness.clock.now.addingTimeInterval(Double(days) * 86_400))
    }

    @Test("three days before the end by default, at 09:00, with the therapy named; none for an ended therapy")
    func therapyEnd() throws {
        let fixture = try TNFixture()
        fixture.run("tn therapy add --name 'TRT' --type trt --start 2026-06-01 --end 2026-12-10")
        fixture.run("tn therapy add --name 'Old masker' --type masker --start 2025-06-01 --end 2025-12-10")
        let reminders = try planned(fixture).filter { $0.ruleID.hasPrefix("therapy-end") }
        #expect(reminders.count == 1)
        #expect(reminders[0].localDate == LocalDate(year: 2026, month: 12, day: 7) && reminders[0].localTime == TimeOfDay(hour: 9, minute: 0))
        #expect(reminders[0].announcement(in: ModuleHarness.berlin).contains("'TRT' ends on 2026-12-10"))
        #expect(fixture.run("tn settings therapy-reminder 5").succeeded)
        #expect(try planned(fixture).filter { $0.ruleID.hasPrefix("therapy-end") }.map(\.localDate) == [LocalDate(year: 2026, month: 12, day: 5)])
        #expect(fixture.run("tn settings therapy-reminder off").succeeded)
        #expect(try planned(fixture).filter { $0.ruleID.hasPrefix("therapy-end") }.isEmpty)
        #expect(fixture.run("tn settings therapy-reminder 0").err.contains("'0' is not a number of days"))
    }

    @Test("one gentle reminder after the set days without a change; a new entry moves it")
    func updateReminder() throws {
        let fixture = try TNFixture()
        #expect(try planned(fixture).isEmpty)  // an empty record asks for nothing
        fixture.run("tn event add --title 'ENT' --at '2026-11-20 14:30' --type appointment")
        #expect(fixture.run("tn settings update-reminder 14").succeeded)
        let first = try planned(fixture).filter { $0.ruleID == "update-record" }
        #expect(first.map(\.localDate) == [LocalDate(year: 2026, month: 12, day: 7)])
        fixture.harness.clock.advance(by: 3 * 86_400)
        fixture.run("tn event add --title 'Attack' --at '2026-11-26 07:00' --type attack")
        #expect(try planned(fixture).filter { $0.ruleID == "update-record" }.map(\.localDate) == [LocalDate(year: 2026, month: 12, day: 10)])
    }
}
