import ArgumentParser
import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// `tn therapies`: the therapies of the record (thesis FR10), grouped by type by default,
/// or sorted by name or start; ongoing ones marked.
struct TherapiesCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "therapies", abstract: L("tn.therapies.abstract"))
    }

    enum Order: String, CaseIterable {
        case type, name, start
    }

    @Option(name: .long, help: ArgumentHelp(L("tn.therapies.option.sort"), valueName: "type|name|start"),
            completion: .list(["type", "name", "start"])) var sort: String?
    @Option(name: .long, help: ArgumentHelp(L("tn.therapies.option.search"), valueName: "text")) var search: String?
    @Flag(name: .long, help: ArgumentHelp(L("tn.therapies.option.ongoing"))) var ongoing = false
    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        var order = Order.type
        if let sort {
            guard let chosen = Order(rawValue: sort.lowercased()) else {
                throw UNITIError(L("tn.error.sort", ["text": sort, "choices": "type, name, start"]))
            }
            order = chosen
        }
        let today = LocalDate(context.clock.now, in: context.clock.timeZone)
        let therapies = try Self.therapies(in: HealthRecordStore(context), order: order, search: search,
                                           ongoingOn: ongoing ? today : nil)
        if output.isRequested(in: context) {
            try context.console.json(therapies.map { TherapyRow($0, today: today) })
            return
        }
        guard !therapies.isEmpty else {
            context.console.line(L("tn.therapies.none"))
            return
        }
        let columns = [L("tn.column.id"), L("tn.column.name"), L("tn.column.period"), ""]
        func row(_ therapy: Therapy) -> [String] {
            [HealthRecordID.short(therapy.id), therapy.name, Self.period(of: therapy),
             therapy.isOngoing(on: today) ? L("tn.therapy.ongoing") : ""]
        }
        guard order == .type else {
            context.console.table(TextTable(header: [columns[0], L("tn.column.type")] + columns.dropFirst(),
                                            rows: therapies.map { row($0).inserting($0.type.title, at: 1) }))
            return
        }
        var first = true
        for (type, group) in Dictionary(grouping: therapies, by: \.type).sorted(by: { CurrentLanguage.value.ordered($0.key.title, $1.key.title) }) {
            if !first { context.console.line() }
            first = false
            context.console.line(L("tn.therapies.group", ["type": type.title, "count": "\(group.count)"]))
            context.console.table(TextTable(rows: group.map(row)))
        }
    }

    /// The therapies in the order asked for; within a type by start, newest first.
    static func therapies(in store: HealthRecordStore, order: Order, search: String?, ongoingOn day: LocalDate?) throws -> [Therapy] {
        var therapies = try store.all(Therapy.self, orderedBy: [Column("start").desc, Column("id")])
        if let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
            therapies = therapies.filter {
                $0.name.localizedCaseInsensitiveContains(search) || ($0.note?.localizedCaseInsensitiveContains(search) ?? false)
                    || $0.type.title.localizedCaseInsensitiveContains(search)
            }
        }
        if let day { therapies = therapies.filter { $0.isOngoing(on: day) } }
        switch order {
        case .start: return therapies
        case .name: return therapies.sortedStably { CurrentLanguage.value.ordered($0.name, $1.name) }
        case .type: return therapies.sortedStably { CurrentLanguage.value.ordered($0.type.title, $1.type.title) }
        }
    }

    /// `2026-01-05 – 2026-03-31`, or `since 2026-01-05`.
    static func period(of therapy: Therapy) -> String {
        therapy.end.map { "\(therapy.start) – \($0)" } ?? L("tn.therapy.since", ["start": therapy.start])
    }
}

/// A therapy as `--json` gives it.
struct TherapyRow: Encodable {
    let id: String
    let name: String
    let type: String
    let start: String
    let end: String?
    let note: String?
    let ongoing: Bool
    let createdAt: String
    let updatedAt: String

    init(_ therapy: Therapy, today: LocalDate) {
        id = therapy.id
        name = therapy.name
        type = therapy.type.rawValue
        start = therapy.start
        end = therapy.end
        note = therapy.note
        ongoing = therapy.isOngoing(on: today)
        createdAt = OffsetTimestamp.utcMilliseconds(therapy.createdAt)
        updatedAt = OffsetTimestamp.utcMilliseconds(therapy.updatedAt)
    }
}

extension Array {
    /// Sorted by `precedes`, elements it holds equal keeping their order.
    func sortedStably(by precedes: (Element, Element) -> Bool) -> [Element] {
        enumerated().sorted { lhs, rhs in
            if precedes(lhs.element, rhs.element) { return true }
            if precedes(rhs.element, lhs.element) { return false }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    func inserting(_ element: Element, at index: Int) -> [Element] {
        var copy = self
        copy.insert(element, at: index)
        return copy
    }
}
