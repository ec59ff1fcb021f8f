import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tyh reminders` and its subcommands (thesis FR6, FR7): the plan, on/off, sound, how many a
/// day, and each weekday's switch and window. Every refusal is one line saying what is
/// accepted, and nothing changes then. `planner` in `track-your-hearing`.
struct RemindersCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "reminders", abstract: L("tyh.reminders.abstract"), subcommands: subcommands)
    }

    static let subcommands: [any ParsableCommand.Type] = [Show.self, On.self, Off.self, Sound.self, PerDay.self, Day.self, Window.self]

    init() {}

    func run(in context: ModuleContext) throws {
        try Show.show(context, json: context.prefersJSON)
    }

    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("tyh.reminders.show.abstract"))
        }
        @OptionGroup var output: JSONOutput
        init() {}

        func run(in context: ModuleContext) throws {
            try Self.show(context, json: output.isRequested(in: context))
        }

        static func show(_ context: ModuleContext, json: Bool) throws {
            let reminders = HearingReminders(context: context)
            let plan = try reminders.plan()
            let enabled = try reminders.isEnabled(plan)
            let now = context.clock.now
            let next = try reminders.planned(from: now, to: now.addingTimeInterval(8 * 86_400)).first
            if json {
                try context.console.json(PlanJSON(plan: plan, enabled: enabled, next: next.map { OffsetTimestamp($0.date, in: context.clock.timeZone).text }))
                return
            }
            let console = context.console
            var days = plan.days, count = plan.perDay
            if let study = try reminders.studySchedule(), let calendar = study.calendar(in: context.clock.timeZone) {
                // What the planner plans: the study's windows and number, or the person's own within its limits.
                days = study.promptDays(chosen: HearingReminders.chosenDays(plan))
                count = study.definition.scheduleChangeable ? min(plan.perDay, calendar.amount) : calendar.amount
                console.line(L(study.definition.scheduleChangeable ? "tyh.reminders.studySets" : "tyh.reminders.studySetsLocked", [
                    "study": QuestionnaireText(localizer: context.localizer).text(study.studyTitle), "gap": "\(study.promptGap)",
                ]))
            }
            console.line(L(enabled ? "tyh.reminders.stateOn" : "tyh.reminders.stateOff", ["count": "\(count)"]))
            console.line(L(plan.sound ? "tyh.reminders.soundOn" : "tyh.reminders.soundOff"))
            console.table(TextTable(columns: [.init(minimumWidth: 11)], rows: days.map { day in
                [day.weekday.localizedName, day.isEnabled ? "\(day.window.start)–\(day.window.end)" : L("tyh.reminders.dayOffShown")]
            }))
            if enabled, let next {
                console.line(L("tyh.reminders.next", ["time": "\(next.localDate.weekday.localizedName) \(next.localDate) \(next.localTime)"]))
            }
        }
    }

    struct On: ShellCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "on", abstract: L("tyh.reminders.on.abstract")) }
        init() {}
        func run(in context: ModuleContext) throws {
            let plan = try HearingReminders(context: context).change { $0.enabled = true }
            context.console.line(L("tyh.reminders.turnedOn", ["count": "\(plan.perDay)"]))
        }
    }

    struct Off: ShellCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "off", abstract: L("tyh.reminders.off.abstract")) }
        init() {}
        func run(in context: ModuleContext) throws {
            try HearingReminders(context: context).change { $0.enabled = false }
            context.console.line(L("tyh.reminders.turnedOff"))
        }
    }

    struct Sound: ShellCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "sound", abstract: L("tyh.reminders.sound.abstract")) }
        @Argument(help: ArgumentHelp(L("tyh.reminders.onOff"), valueName: "on|off"), completion: OnOff.offered) var state: OnOff
        init() {}
        func run(in context: ModuleContext) throws {
            try HearingReminders(context: context).change { $0.sound = state.isOn }
            context.console.line(L(state.isOn ? "tyh.reminders.soundOn" : "tyh.reminders.soundOff"))
        }
    }

    struct PerDay: ShellCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "per-day", abstract: L("tyh.reminders.perDay.abstract")) }
        @Argument(help: ArgumentHelp(L("tyh.reminders.perDay.value"), valueName: "N")) var count: Int
        init() {}
        func run(in context: ModuleContext) throws {
            try HearingReminders(context: context).change { $0.perDay = count }
            context.console.line(L("tyh.reminders.perDaySet", count: count))
        }
    }

    struct Day: ShellCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "day", abstract: L("tyh.reminders.day.abstract")) }
        @Argument(help: ArgumentHelp(L("tyh.reminders.weekday"), valueName: "DAY"), completion: .weekdays) var day: String
        @Argument(help: ArgumentHelp(L("tyh.reminders.onOff"), valueName: "on|off"), completion: OnOff.offered) var state: OnOff
        init() {}
        func run(in context: ModuleContext) throws {
            let weekday = try Weekday(parsing: day)
            try HearingReminders(context: context).change { $0.days[weekday.rawValue - 1].isEnabled = state.isOn }
            context.console.line(L(state.isOn ? "tyh.reminders.dayOn" : "tyh.reminders.dayOff", ["day": weekday.localizedName]))
        }
    }

    struct Window: ShellCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "window", abstract: L("tyh.reminders.window.abstract")) }
        @Argument(help: ArgumentHelp(L("tyh.reminders.weekday"), valueName: "DAY"), completion: .weekdays) var day: String
        @Argument(help: ArgumentHelp(L("tyh.reminders.from"), valueName: "HH:MM")) var start: String
        @Argument(help: ArgumentHelp(L("tyh.reminders.until"), valueName: "HH:MM")) var end: String
        init() {}
        func run(in context: ModuleContext) throws {
            let weekday = try Weekday(parsing: day)
            let window = try TimeWindow(start: TimeOfDay(parsing: start), end: TimeOfDay(parsing: end))
            try HearingReminders(context: context).change { $0.days[weekday.rawValue - 1].window = window }
            context.console.line(L("tyh.reminders.windowSet", ["day": weekday.localizedName, "start": "\(window.start)", "end": "\(window.end)"]))
        }
    }

    /// `tyh reminders --json`.
    struct PlanJSON: Encodable {
        struct Day: Encodable {
            let weekday: String
            let enabled: Bool
            let start: String
            let end: String
        }
        let enabled: Bool
        let sound: Bool
        let perDay: Int
        let days: [Day]
        let nextReminder: String?

        init(plan: HearingReminders.Plan, enabled: Bool, next: String?) {
            self.enabled = enabled
            sound = plan.sound
            perDay = plan.perDay
            days = plan.days.map { Day(weekday: "\($0.weekday)", enabled: $0.isEnabled, start: "\($0.window.start)", end: "\($0.window.end)") }
            nextReminder = enabled ? next : nil
        }
    }
}

/// `planner` in `track-your-hearing`: the same as `tyh reminders`.
struct PlannerCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "planner", abstract: L("tyh.reminders.abstract"), subcommands: RemindersCommand.subcommands)
    }

    init() {}

    func run(in context: ModuleContext) throws {
        try RemindersCommand.Show.show(context, json: context.prefersJSON)
    }
}
