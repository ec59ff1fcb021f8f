import ArgumentParser
import Foundation
import UNITICore

/// `tn event add|show|edit|delete`: one event of the record (thesis FR9). Adding and editing
/// work in one line with options, or by questions for whatever the options leave out.
struct EventCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "event", abstract: L("tn.event.abstract"),
                             subcommands: [Add.self, Show.self, Edit.self, Delete.self])
    }

    init() {}

    func run(in context: ModuleContext) throws {
        throw UNITIError(L("tn.error.subcommand", ["command": "tn event", "choices": "add, show, edit, delete"]))
    }

    /// The fields an add or edit may set in one line.
    struct Fields: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp(L("tn.event.option.title"), valueName: "text")) var title: String?
        @Option(name: .long, help: ArgumentHelp(L("tn.event.option.at"), valueName: "YYYY-MM-DD HH:MM")) var at: String?
        @Option(name: .long, help: ArgumentHelp(L("tn.event.option.type"), valueName: "type"),
                completion: .list(HealthEvent.Kind.allCases.map(\.rawValue))) var type: String?
        @Option(name: .long, help: ArgumentHelp(L("tn.event.option.description"), valueName: "text")) var description: String?

        init() {}

        var isEmpty: Bool { title == nil && at == nil && type == nil && description == nil }
    }

    struct Add: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "add", abstract: L("tn.event.add.abstract"))
        }
        @OptionGroup var fields: Fields

        init() {}

        func run(in context: ModuleContext) throws {
            let zone = context.clock.timeZone
            // Options first, so a wrong one is named before any question is asked.
            let typedAt = try fields.at.map { try EntryInput.dateTime($0, in: zone) }
            let typedType = try fields.type.map(HealthEvent.Kind.init(parsing:))
            let input = EntryInput(context: context)
            let title = try fields.title ?? input.ask(L("tn.event.prompt.title")) { text in
                try HealthRecordText.required(text, field: L("tn.event.field.title"), limit: HealthEvent.titleLimit)
            }
            let now = context.clock.now
            let at = try typedAt ?? input.ask(L("tn.event.prompt.at", ["now": EntryInput.show(now, in: zone)]), empty: now) {
                try EntryInput.dateTime($0, in: zone)
            }
            let type = try typedType ?? input.choose(L("tn.event.prompt.type"), from: HealthEvent.Kind.allCases, title: \.title,
                                                     parse: HealthEvent.Kind.init(parsing:))
            let description = fields.isEmpty ? try input.askOptionalText(L("tn.event.prompt.description"), current: nil) : fields.description
            let event = try HealthEvent(title: title, at: at, type: type, description: description, now: now)
            try HealthRecordStore(context).save(event, at: now)
            context.console.line(L("tn.event.added", ["id": HealthRecordID.short(event.id), "title": event.title]))
        }
    }

    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("tn.event.show.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tn.option.id"), valueName: "id")) var id: String
        @OptionGroup var output: JSONOutput

        init() {}

        func run(in context: ModuleContext) throws {
            let event = try HealthRecordStore(context).find(HealthEvent.self, id, noun: L("tn.event.noun"))
            let zone = context.clock.timeZone
            if output.isRequested(in: context) {
                try context.console.json(EventRow(event, in: zone))
                return
            }
            context.console.table(TextTable(rows: [
                [L("tn.column.title"), event.title],
                [L("tn.column.when"), EntryInput.show(event.at, in: zone)],
                [L("tn.column.type"), event.type.title],
                [L("tn.column.description"), event.description ?? "–"],
                [L("tn.column.changed"), EntryInput.show(event.updatedAt, in: zone)],
                [L("tn.column.id"), event.id],
            ]))
        }
    }

    struct Edit: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "edit", abstract: L("tn.event.edit.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tn.option.id"), valueName: "id")) var id: String
        @OptionGroup var fields: Fields

        init() {}

        func run(in context: ModuleContext) throws {
            let store = HealthRecordStore(context)
            var event = try store.find(HealthEvent.self, id, noun: L("tn.event.noun"))
            let zone = context.clock.timeZone
            if fields.isEmpty {
                // Questions with the current value kept by an empty answer.
                let input = EntryInput(context: context)
                event.title = try input.ask(L("tn.event.prompt.titleKeep", ["current": event.title]), empty: event.title) { text in
                    try HealthRecordText.required(text, field: L("tn.event.field.title"), limit: HealthEvent.titleLimit)
                }
                event.at = try input.ask(L("tn.event.prompt.atKeep", ["current": EntryInput.show(event.at, in: zone)]), empty: event.at) {
                    try EntryInput.dateTime($0, in: zone)
                }
                event.type = try input.choose(L("tn.event.prompt.typeKeep", ["current": event.type.title]), from: HealthEvent.Kind.allCases,
                                              title: \.title, current: event.type, parse: HealthEvent.Kind.init(parsing:))
                event.description = try input.askOptionalText(L("tn.event.prompt.descriptionKeep"), current: event.description)
            } else {
                if let title = fields.title { event.title = title }
                if let at = fields.at { event.at = try EntryInput.dateTime(at, in: zone) }
                if let type = fields.type { event.type = try HealthEvent.Kind(parsing: type) }
                if let description = fields.description { event.description = description.isEmpty ? nil : description }
            }
            // The same checks as a new event, through the one initializer, keeping id and creation time.
            let edited = try HealthEvent(id: event.id, title: event.title, at: event.at, type: event.type,
                                         description: event.description, now: event.createdAt)
            try store.save(edited, at: context.clock.now)
            context.console.line(L("tn.event.saved", ["id": HealthRecordID.short(event.id), "title": edited.title]))
        }
    }

    struct Delete: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: L("tn.event.delete.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tn.option.id"), valueName: "id")) var id: String
        @Flag(name: .long, help: ArgumentHelp(L("tn.option.yes"))) var yes = false

        init() {}

        func run(in context: ModuleContext) throws {
            let store = HealthRecordStore(context)
            let event = try store.find(HealthEvent.self, id, noun: L("tn.event.noun"))
            guard try EntryInput(context: context).confirmDeletion("\(event.title) (\(EntryInput.show(event.at, in: context.clock.timeZone)))", skip: yes) else {
                context.console.line(L("tn.delete.kept"))
                return
            }
            try store.delete(HealthEvent.self, id: event.id, at: context.clock.now)
            context.console.line(L("tn.event.deleted", ["title": event.title]))
        }
    }
}
