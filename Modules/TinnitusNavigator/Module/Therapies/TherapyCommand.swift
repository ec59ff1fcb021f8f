import ArgumentParser
import Foundation
import UNITICore

/// `tn therapy add|show|edit|delete|types`: one therapy of the record (thesis FR10). Adding
/// and editing work in one line with options, or by questions for what the options leave out.
struct TherapyCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "therapy", abstract: L("tn.therapy.abstract"),
                             subcommands: [Add.self, Show.self, Edit.self, Delete.self, Types.self])
    }

    init() {}

    func run(in context: ModuleContext) throws {
        throw UNITIError(L("tn.error.subcommand", ["command": "tn therapy", "choices": "add, show, edit, delete, types"]))
    }

    struct Fields: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp(L("tn.therapy.option.name"), valueName: "text")) var name: String?
        @Option(name: .long, help: ArgumentHelp(L("tn.therapy.option.type"), valueName: "type"),
                completion: .list(Therapy.Kind.allCases.map(\.rawValue))) var type: String?
        @Option(name: .long, help: ArgumentHelp(L("tn.therapy.option.start"), valueName: "YYYY-MM-DD")) var start: String?
        @Option(name: .long, help: ArgumentHelp(L("tn.therapy.option.end"), valueName: "YYYY-MM-DD|-")) var end: String?
        @Option(name: .long, help: ArgumentHelp(L("tn.therapy.option.note"), valueName: "text")) var note: String?

        init() {}

        var isEmpty: Bool { name == nil && type == nil && start == nil && end == nil && note == nil }

        /// `--end -` (or empty) clears the end: the therapy goes on.
        func parsedEnd() throws -> LocalDate?? {
            guard let end else { return .none }
            let trimmed = end.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed == "-" ? .some(nil) : .some(try EntryInput.date(trimmed))
        }
    }

    struct Add: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "add", abstract: L("tn.therapy.add.abstract"))
        }
        @OptionGroup var fields: Fields

        init() {}

        func run(in context: ModuleContext) throws {
            let typedType = try fields.type.map(Therapy.Kind.init(parsing:))
            let typedStart = try fields.start.map(EntryInput.date)
            let typedEnd = try fields.parsedEnd()
            let input = EntryInput(context: context)
            let today = LocalDate(context.clock.now, in: context.clock.timeZone)
            let name = try fields.name ?? input.ask(L("tn.therapy.prompt.name")) { text in
                try HealthRecordText.required(text, field: L("tn.therapy.field.name"), limit: Therapy.nameLimit)
            }
            let type = try typedType ?? input.choose(L("tn.therapy.prompt.type"), from: Therapy.Kind.allCases, title: \.title,
                                                     parse: Therapy.Kind.init(parsing:))
            let start = try typedStart ?? input.ask(L("tn.therapy.prompt.start", ["today": "\(today)"]), empty: today, EntryInput.date)
            var end: LocalDate?
            if let typedEnd {
                end = typedEnd
            } else if fields.isEmpty || fields.start == nil {
                end = try input.ask(L("tn.therapy.prompt.end"), empty: LocalDate?.none) { text in
                    let date = try EntryInput.date(text)
                    if date < start { throw UNITIError(L("tn.therapy.error.endBeforeStart", ["start": "\(start)", "end": "\(date)"])) }
                    return date
                }
            }
            let note = fields.isEmpty ? try input.askOptionalText(L("tn.therapy.prompt.note"), current: nil) : fields.note
            let now = context.clock.now
            let therapy = try Therapy(name: name, type: type, start: start, end: end, note: note, now: now)
            try HealthRecordStore(context).save(therapy, at: now)
            context.console.line(L("tn.therapy.added", ["id": HealthRecordID.short(therapy.id), "name": therapy.name]))
        }
    }

    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("tn.therapy.show.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tn.option.id"), valueName: "id")) var id: String
        @OptionGroup var output: JSONOutput

        init() {}

        func run(in context: ModuleContext) throws {
            let therapy = try HealthRecordStore(context).find(Therapy.self, id, noun: L("tn.therapy.noun"))
            let today = LocalDate(context.clock.now, in: context.clock.timeZone)
            if output.isRequested(in: context) {
                try context.console.json(TherapyRow(therapy, today: today))
                return
            }
            context.console.table(TextTable(rows: [
                [L("tn.column.name"), therapy.name],
                [L("tn.column.type"), therapy.type.title],
                [L("tn.column.period"), TherapiesCommand.period(of: therapy) + (therapy.isOngoing(on: today) ? "  " + L("tn.therapy.ongoing") : "")],
                [L("tn.column.note"), therapy.note ?? "–"],
                [L("tn.column.changed"), EntryInput.show(therapy.updatedAt, in: context.clock.timeZone)],
                [L("tn.column.id"), therapy.id],
            ]))
        }
    }

    struct Edit: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "edit", abstract: L("tn.therapy.edit.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tn.option.id"), valueName: "id")) var id: String
        @OptionGroup var fields: Fields

        init() {}

        func run(in context: ModuleContext) throws {
            let store = HealthRecordStore(context)
            let therapy = try store.find(Therapy.self, id, noun: L("tn.therapy.noun"))
            var name = therapy.name, type = therapy.type, start = therapy.startDate, end = therapy.endDate, note = therapy.note
            if fields.isEmpty {
                let input = EntryInput(context: context)
                name = try input.ask(L("tn.therapy.prompt.nameKeep", ["current": name]), empty: name) { text in
                    try HealthRecordText.required(text, field: L("tn.therapy.field.name"), limit: Therapy.nameLimit)
                }
                type = try input.choose(L("tn.therapy.prompt.typeKeep", ["current": type.title]), from: Therapy.Kind.allCases,
                                        title: \.title, current: type, parse: Therapy.Kind.init(parsing:))
                start = try input.ask(L("tn.therapy.prompt.startKeep", ["current": "\(start)"]), empty: start, EntryInput.date)
                end = try input.ask(L("tn.therapy.prompt.endKeep", ["current": end.map { "\($0)" } ?? "–"]), empty: end) { text in
                    text == "-" ? nil : try EntryInput.date(text)
                }
                note = try input.askOptionalText(L("tn.therapy.prompt.noteKeep"), current: note)
            } else {
                if let value = fields.name { name = value }
                if let value = fields.type { type = try Therapy.Kind(parsing: value) }
                if let value = fields.start { start = try EntryInput.date(value) }
                if let value = try fields.parsedEnd() { end = value }
                if let value = fields.note { note = value.isEmpty ? nil : value }
            }
            // The same checks as a new therapy, keeping its id and creation time.
            let edited = try Therapy(id: therapy.id, name: name, type: type, start: start, end: end, note: note, now: therapy.createdAt)
            try store.save(edited, at: context.clock.now)
            context.console.line(L("tn.therapy.saved", ["id": HealthRecordID.short(edited.id), "name": edited.name]))
        }
    }

    struct Delete: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: L("tn.therapy.delete.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tn.option.id"), valueName: "id")) var id: String
        @Flag(name: .long, help: ArgumentHelp(L("tn.option.yes"))) var yes = false

        init() {}

        func run(in context: ModuleContext) throws {
            let store = HealthRecordStore(context)
            let therapy = try store.find(Therapy.self, id, noun: L("tn.therapy.noun"))
            guard try EntryInput(context: context).confirmDeletion(therapy.name, skip: yes) else {
                context.console.line(L("tn.delete.kept"))
                return
            }
            try store.delete(Therapy.self, id: therapy.id, at: context.clock.now)
            context.console.line(L("tn.therapy.deleted", ["name": therapy.name]))
        }
    }

    struct Types: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "types", abstract: L("tn.therapy.types.abstract"))
        }
        @OptionGroup var output: JSONOutput

        init() {}

        struct Row: Encodable { let key: String, title: String }

        func run(in context: ModuleContext) throws {
            let rows = Therapy.Kind.allCases.map { Row(key: $0.rawValue, title: $0.title) }
            if output.isRequested(in: context) {
                try context.console.json(rows)
                return
            }
            context.console.table(TextTable(header: [L("tn.column.key"), L("tn.column.type")], rows: rows.map { [$0.key, $0.title] }))
        }
    }
}
