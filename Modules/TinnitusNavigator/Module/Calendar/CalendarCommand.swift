import ArgumentParser
import Foundation
import GRDB
import UNITICore

/// `tn calendar [YYYY-MM]`: a month of the record at a glance (thesis outlook, 8): the grid
/// with the days that have events marked, then that month's events, and the therapies that
/// start or end in it.
struct CalendarCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "calendar", abstract: L("tn.calendar.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tn.calendar.option.month"), valueName: "YYYY-MM")) var month: String?

    init() {}

    func run(in context: ModuleContext) throws {
        let zone = context.clock.timeZone
        let today = LocalDate(context.clock.now, in: zone)
        let grid = try month.map(MonthGrid.init(parsing:)) ?? MonthGrid(year: today.year, month: today.month)
        let query = EventQuery(from: grid.firstDay, to: grid.nextMonth.adding(days: -1), oldestFirst: true)
        let store = HealthRecordStore(context)
        let events = try query.events(in: store, timeZone: zone)
        let marked = Set(events.map { LocalDate($0.at, in: zone).day })
        let isThisMonth = today.year == grid.year && today.month == grid.month
        context.console.line(L("tn.calendar.title", ["month": L("tn.calendar.month.\(grid.month)"), "year": "\(grid.year)"]))
        let names = (1...7).map { L("tn.calendar.weekday.\($0)") }
        for line in grid.lines(marked: marked, today: isThisMonth ? today.day : nil, weekdayNames: names) {
            context.console.line(line)
        }
        context.console.line()
        if events.isEmpty {
            context.console.line(L("tn.calendar.noEvents"))
        } else {
            context.console.table(TextTable(rows: events.map {
                [EntryInput.show($0.at, in: zone), HealthRecordID.short($0.id), $0.type.title, $0.title]
            }))
        }
        let monthDays = grid.firstDay...grid.nextMonth.adding(days: -1)
        let therapies = try store.all(Therapy.self, orderedBy: [Column("start")]).filter {
            monthDays.contains($0.startDate) || $0.endDate.map(monthDays.contains) == true
        }
        for therapy in therapies {
            if monthDays.contains(therapy.startDate) {
                context.console.line(L("tn.calendar.therapyStarts", ["date": therapy.start, "name": therapy.name]))
            }
            if let end = therapy.endDate, monthDays.contains(end) {
                context.console.line(L("tn.calendar.therapyEnds", ["date": "\(end)", "name": therapy.name]))
            }
        }
    }
}
