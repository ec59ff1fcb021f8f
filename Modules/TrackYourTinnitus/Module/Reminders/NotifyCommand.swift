import ArgumentParser
import Foundation
import UNITICore

/// `tyt notify ...`: the standard and custom reminders of thesis FR3/FR13.
struct NotifyCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "notify", abstract: L("tyt.notify.abstract"),
                             subcommands: [Count.self, Window.self, Add.self, Remove.self, Clear.self, Show.self])
    }

    init() {}

    func run(in context: ModuleContext) throws {
        try Show.show(context, json: context.prefersJSON)
    }

    struct Count: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "count", abstract: L("tyt.notify.count.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.notify.count.value"), valueName: "N")) var count: Int
        init() {}
        func run(in context: ModuleContext) throws {
            let plan = try ReminderPlan.change(context) { $0.count = count }
            context.console.line(L("tyt.notify.countSet", count: plan.count))
        }
    }

    struct Window: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "window", abstract: L("tyt.notify.window.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.notify.day"), valueName: "DAY"), completion: .weekdays) var day: String
        @Argument(help: ArgumentHelp(L("tyt.notify.start"), valueName: "HH:MM")) var start: String
        @Argument(help: ArgumentHelp(L("tyt.notify.end"), valueName: "HH:MM")) var end: String
        init() {}
        func run(in context: ModuleContext) throws {
            try ReminderPlan.change(context) { plan in
                let weekday = try Weekday(parsing: day)
                let window = try TimeWindow(start: TimeOfDay(parsing: start), end: TimeOfDay(parsing: end))
                plan.days[weekday.rawValue - 1].window = window
                plan.days[weekday.rawValue - 1].isEnabled = true
            }
            context.console.line(L("tyt.notify.windowSet", ["day": try Weekday(parsing: day).localizedName, "start": start, "end": end]))
        }
    }

    struct Add: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "add", abstract: L("tyt.notify.add.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.notify.day"), valueName: "DAY"), completion: .weekdays) var day: String
        @Argument(help: ArgumentHelp(L("tyt.notify.time"), valueName: "HH:MM")) var time: String
        init() {}
        func run(in context: ModuleContext) throws {
            try editCustomReminder(context, day: day, time: time, messageKey: "tyt.notify.added") { try $0.add($1) }
        }
    }

    struct Remove: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "remove", abstract: L("tyt.notify.remove.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.notify.day"), valueName: "DAY"), completion: .weekdays) var day: String
        @Argument(help: ArgumentHelp(L("tyt.notify.time"), valueName: "HH:MM")) var time: String
        init() {}
        func run(in context: ModuleContext) throws {
            try editCustomReminder(context, day: day, time: time, messageKey: "tyt.notify.removed") { try $0.remove($1) }
        }
    }

    struct Clear: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "clear", abstract: L("tyt.notify.clear.abstract"))
        }
        init() {}
        func run(in context: ModuleContext) throws {
            try ReminderPlan.change(context) { plan in
                plan.count = 0
                plan.days = DayWindow.week()
            }
            context.console.line(L("tyt.notify.cleared"))
        }
    }

    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("tyt.notify.show.abstract"))
        }
        @OptionGroup var output: JSONOutput
        init() {}
        func run(in context: ModuleContext) throws {
            try Self.show(context, json: output.isRequested(in: context))
        }

        static func show(_ context: ModuleContext, json: Bool) throws {
            let plan = try ReminderPlan.load(context)
            if json {
                try context.console.json(ReminderPlanJSON(plan))
                return
            }
            let console = context.console
            if let study = try ReminderPlan.studySchedule(context) {
                let values = ["study": QuestionnaireText(localizer: context.localizer).text(study.studyTitle), "gap": "\(study.promptGap)"]
                console.line(L(study.definition.scheduleChangeable ? "tyt.notify.show.studySets" : "tyt.notify.show.studySetsLocked", values))
            }
            console.line(plan.count == 0 ? L("tyt.notify.show.noStandard")
                                         : L("tyt.notify.show.standard", count: plan.count))
            // Weekdays 11 columns wide, so the windows start at one place in every language.
            console.table(TextTable(columns: [.init(minimumWidth: 11)], rows: plan.days.map { day in
                [day.weekday.localizedName, day.isEnabled ? "\(day.window.start)–\(day.window.end)" : L("tyt.notify.show.off")]
            }))
            if plan.fixed.isEmpty {
                console.line(L("tyt.notify.show.noCustom"))
            } else {
                console.line(L("tyt.notify.show.custom"))
                for entry in plan.fixed { console.line("  \(entry.weekday.localizedName) \(entry.time)") }
            }
            console.line(L("tyt.notify.show.largest", count: plan.largestCount))
        }
    }
}

/// `tyt notify show --json`.
struct ReminderPlanJSON: Encodable {
    struct Day: Encodable {
        let weekday: String
        let start: String
        let end: String
        let enabled: Bool
    }
    struct Entry: Encodable {
        let weekday: String
        let time: String
    }
    let standardPerDay: Int
    let windows: [Day]
    let custom: [Entry]
    let largestStandardPerDay: Int

    init(_ plan: ReminderPlan) {
        standardPerDay = plan.count
        windows = plan.days.map { Day(weekday: "\($0.weekday)", start: "\($0.window.start)", end: "\($0.window.end)", enabled: $0.isEnabled) }
        custom = plan.fixed.map { Entry(weekday: "\($0.weekday)", time: "\($0.time)") }
        largestStandardPerDay = plan.largestCount
    }
}

/// Adds or removes one custom (weekday + time) reminder: parses the entry, applies `edit` to the
/// custom reminders of a copy of the plan (checked before it is saved), and reports the entry.
private func editCustomReminder(_ context: ModuleContext, day: String, time: String, messageKey: String,
                                _ edit: (inout DailyReminders, FixedReminderTime) throws -> Void) throws {
    let entry = FixedReminderTime(weekday: try Weekday(parsing: day), time: try TimeOfDay(parsing: time))
    try ReminderPlan.change(context) { plan in
        var daily = try DailyReminders(fixed: plan.fixed)
        try edit(&daily, entry)
        plan.fixed = daily.fixed
    }
    context.console.line(L(messageKey, ["entry": "\(entry.weekday.localizedName) \(entry.time)"]))
}
