import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tn events`: the record's events, newest first (thesis FR9), searched, filtered by type and
/// period, sorted by date or title.
struct EventsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "events", abstract: L("tn.events.abstract"))
    }

    @Option(name: .long, help: ArgumentHelp(L("tn.events.option.search"), valueName: "text")) var search: String?
    @Option(name: .long, help: ArgumentHelp(L("tn.events.option.type"), valueName: "type"),
            completion: .list(HealthEvent.Kind.allCases.map(\.rawValue))) var type: String?
    @Option(name: .long, help: ArgumentHelp(L("tn.events.option.sort"), valueName: "date|title"),
            completion: .list(["date", "title"])) var sort: String?
    @Flag(name: .long, help: ArgumentHelp(L("tn.events.option.oldestFirst"))) var oldestFirst = false
    @Option(name: .long, help: ArgumentHelp(L("tn.option.from"), valueName: "YYYY-MM-DD")) var from: String?
    @Option(name: .long, help: ArgumentHelp(L("tn.option.to"), valueName: "YYYY-MM-DD")) var to: String?
    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        var query = EventQuery(search: search, oldestFirst: oldestFirst)
        query.type = try type.map(HealthEvent.Kind.init(parsing:))
        query.from = try from.map(EntryInput.date)
        query.to = try to.map(EntryInput.date)
        if let sort {
            guard let order = EventQuery.Order(rawValue: sort.lowercased()) else {
                throw UNITIError(L("tn.error.sort", ["text": sort, "choices": "date, title"]))
            }
            query.order = order
        }
        let zone = context.clock.timeZone
        let events = try query.events(in: HealthRecordStore(context), timeZone: zone)
        if output.isRequested(in: context) {
            try context.console.json(events.map { EventRow($0, in: zone) })
            return
        }
        guard !events.isEmpty else {
            context.console.line(L("tn.events.none"))
            return
        }
        context.console.table(TextTable(
            header: [L("tn.column.id"), L("tn.column.when"), L("tn.column.type"), L("tn.column.title")],
            rows: events.map { [HealthRecordID.short($0.id), EntryInput.show($0.at, in: zone), $0.type.title, $0.title] }))
    }
}

/// An event as `--json` gives it: its id in full, its time with the person's offset.
struct EventRow: Encodable {
    let id: String
    let title: String
    let at: String
    let type: String
    let description: String?
    let createdAt: String
    let updatedAt: String

    init(_ event: HealthEvent, in timeZone: TimeZone) {
        id = event.id
        title = event.title
        at = OffsetTimestamp(event.at, in: timeZone).text
        type = event.type.rawValue
        description = event.description
        createdAt = OffsetTimestamp.utcMilliseconds(event.createdAt)
        updatedAt = OffsetTimestamp.utcMilliseconds(event.updatedAt)
    }
}
