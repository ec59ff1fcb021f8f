import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tys reminders [ID]` and its subcommands (thesis FR16, FR17): the reminders of each
/// repeating questionnaire, and, where the study allows it, the person's changes: standard
/// (random within windows) or custom (fixed times), and the weekday planner. Called `planner`
/// in `track-your-stress`, whose shell has a `reminders` command of its own.
struct RemindersCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        // `tys reminders ID` is `tys reminders show ID`: show is the default subcommand.
        CommandConfiguration(commandName: "reminders", abstract: L("tys.reminders.abstract"), subcommands: subcommands,
                             defaultSubcommand: Show.self)
    }

    static let subcommands: [any ParsableCommand.Type] = [Show.self, Standard.self, Custom.self, Day.self, Window.self, Reset.self]

    init() {}

    func run(in context: ModuleContext) throws {
        try Show.show(context, id: nil, json: context.prefersJSON)
    }

    /// The repeating questionnaire named `id`, with one line listing them when it is not one.
    static func questionnaire(_ context: ModuleContext, _ id: String) throws -> StudyQuestionnaire {
        let all = try context.studyQuestionnaires.questionnaires()
        guard let found = all.first(where: { $0.id == id }) else {
            let repeating = all.filter(\.isRepeating).map(\.id)
            throw UNITIError(L("tys.reminders.unknown", ["id": id, "ids": repeating.joined(separator: ", ")]))
        }
        return found
    }

    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("tys.reminders.show.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tys.reminders.id"), valueName: "ID")) var id: String?
        @OptionGroup var output: JSONOutput
        init() {}

        func run(in context: ModuleContext) throws {
            try Self.show(context, id: id, json: output.isRequested(in: context))
        }

        static func show(_ context: ModuleContext, id: String?, json: Bool) throws {
            let reminders = StressReminders(context: context)
            var questionnaires = try context.studyQuestionnaires.questionnaires().filter(\.isRepeating)
            if let id { questionnaires = [try RemindersCommand.questionnaire(context, id)] }
            let statuses = try context.studyQuestionnaires.statuses()
            let next = try reminders.nextReminders(for: statuses)
            let views = try questionnaires.map { try ReminderView($0, reminders: reminders, next: next[$0.id],
                                                                  timeZone: context.clock.timeZone) }
            if json {
                try context.console.json(views)
                return
            }
            guard !views.isEmpty else {
                context.console.line(L("tys.reminders.none"))
                return
            }
            for view in views { view.print(context.console) }
        }
    }

    struct Standard: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "standard", abstract: L("tys.reminders.standard.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tys.reminders.id"), valueName: "ID")) var id: String
        @Argument(help: ArgumentHelp(L("tys.reminders.count"), valueName: "N")) var count: Int?
        init() {}

        func run(in context: ModuleContext) throws {
            let questionnaire = try RemindersCommand.questionnaire(context, id)
            if count != nil, questionnaire.definition.schedule?.frequency != .daily {
                throw UNITIError(L("tys.reminders.single", ["id": id]))
            }
            try StressReminders(context: context).change(questionnaire) { choice in
                choice.mode = .standard
                choice.times = []
                if let count { choice.count = count }
            }
            context.console.line(L("tys.reminders.standardSet", ["id": id]))
        }
    }

    struct Custom: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "custom", abstract: L("tys.reminders.custom.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tys.reminders.id"), valueName: "ID")) var id: String
        @Argument(help: ArgumentHelp(L("tys.reminders.times"), valueName: "HH:MM")) var times: [String] = []
        init() {}

        func run(in context: ModuleContext) throws {
            let questionnaire = try RemindersCommand.questionnaire(context, id)
            let parsed = try times.map(TimeOfDay.init(parsing:))
            guard !parsed.isEmpty else { throw UNITIError(L("tys.reminders.noTimes")) }
            guard Set(parsed).count == parsed.count else { throw UNITIError(L("tys.reminders.repeatedTime")) }
            if questionnaire.definition.schedule?.frequency != .daily, parsed.count != 1 {
                throw UNITIError(L("tys.reminders.single", ["id": id]))
            }
            try StressReminders(context: context).change(questionnaire) { choice in
                choice.mode = .custom
                choice.times = parsed.sorted()
            }
            context.console.line(L("tys.reminders.customSet", ["id": id, "times": parsed.sorted().map(\.description).joined(separator: ", ")]))
        }
    }

    /// `day ID DAY on|off`: whether a daily questionnaire reminds on that weekday.
    struct Day: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "day", abstract: L("tys.reminders.day.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tys.reminders.id"), valueName: "ID")) var id: String
        @Argument(help: ArgumentHelp(L("tys.reminders.weekday"), valueName: "DAY"), completion: .weekdays) var day: String
        @Argument(help: ArgumentHelp(L("tys.reminders.onOff"), valueName: "on|off"), completion: OnOff.offered) var state: OnOff
        init() {}

        func run(in context: ModuleContext) throws {
            let questionnaire = try RemindersCommand.questionnaire(context, id)
            let weekday = try Weekday(parsing: day)
            try requireDaily(questionnaire)
            try StressReminders(context: context).change(questionnaire) { choice in
                choice.days[weekday.rawValue - 1].isEnabled = state.isOn
            }
            context.console.line(L(state.isOn ? "tys.reminders.dayOn" : "tys.reminders.dayOff",
                                   ["id": id, "day": weekday.localizedName]))
        }
    }

    /// `window ID DAY HH:MM HH:MM`: the window of a weekday for standard reminders.
    struct Window: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "window", abstract: L("tys.reminders.window.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tys.reminders.id"), valueName: "ID")) var id: String
        @Argument(help: ArgumentHelp(L("tys.reminders.weekday"), valueName: "DAY"), completion: .weekdays) var day: String
        @Argument(help: ArgumentHelp(L("tys.reminders.from"), valueName: "HH:MM")) var start: String
        @Argument(help: ArgumentHelp(L("tys.reminders.until"), valueName: "HH:MM")) var end: String
        init() {}

        func run(in context: ModuleContext) throws {
            let questionnaire = try RemindersCommand.questionnaire(context, id)
            let weekday = try Weekday(parsing: day)
            let window = try TimeWindow(start: TimeOfDay(parsing: start), end: TimeOfDay(parsing: end))
            try requireDaily(questionnaire)
            try StressReminders(context: context).change(questionnaire) { choice in
                choice.days[weekday.rawValue - 1].window = window
                choice.days[weekday.rawValue - 1].isEnabled = true
            }
            context.console.line(L("tys.reminders.windowSet", [
                "id": id, "day": weekday.localizedName, "start": "\(window.start)", "end": "\(window.end)",
            ]))
        }
    }

    struct Reset: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "reset", abstract: L("tys.reminders.reset.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tys.reminders.id"), valueName: "ID")) var id: String
        init() {}

        func run(in context: ModuleContext) throws {
            try StressReminders(context: context).reset(try RemindersCommand.questionnaire(context, id))
            context.console.line(L("tys.reminders.resetDone", ["id": id]))
        }
    }
}

/// `planner` in `track-your-stress`: the same as `tys reminders`.
struct PlannerCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "planner", abstract: L("tys.reminders.abstract"),
                             subcommands: RemindersCommand.subcommands, defaultSubcommand: RemindersCommand.Show.self)
    }

    init() {}

    func run(in context: ModuleContext) throws {
        try RemindersCommand.Show.show(context, id: nil, json: context.prefersJSON)
    }
}

/// The weekday planner belongs to daily questionnaires; weekly and monthly ones have one time.
private func requireDaily(_ questionnaire: StudyQuestionnaire) throws {
    guard questionnaire.definition.schedule?.frequency == .daily else {
        throw UNITIError(L("tys.reminders.single", ["id": questionnaire.id]))
    }
}

/// One questionnaire's reminders, for `reminders show` and its `--json`.
struct ReminderView: Encodable {
    struct Day: Encodable {
        let weekday: String
        let start: String
        let end: String
        let enabled: Bool
    }

    let id: String
    let title: String
    let schedule: String
    let changeable: Bool
    let mode: String
    let perDay: Int?
    let times: [String]
    let days: [Day]?
    let nextReminder: String?

    init(_ questionnaire: StudyQuestionnaire, reminders: StressReminders, next: Date?, timeZone: TimeZone) throws {
        let definition = questionnaire.definition
        let choice = try reminders.choice(for: questionnaire)
        let daily = definition.schedule?.frequency == .daily
        id = questionnaire.id
        title = QuestionnaireText(localizer: CurrentLanguage.localizer).text(definition.title)
        schedule = definition.schedule.map(ScheduleText.describe) ?? ""
        changeable = definition.scheduleChangeable
        mode = choice.mode.rawValue
        perDay = daily && choice.mode == .standard ? (choice.count ?? questionnaire.calendar(in: timeZone)?.amount ?? 1) : nil
        if choice.mode == .custom {
            times = choice.times.map(\.description)
        } else if !daily {
            times = [StressReminders.defaultTime.description]
        } else {
            times = []
        }
        days = daily ? choice.days.map { Day(weekday: "\($0.weekday)", start: "\($0.window.start)", end: "\($0.window.end)", enabled: $0.isEnabled) } : nil
        nextReminder = next.map { ReminderTimeText.format($0, timeZone: timeZone) }
        calendar = questionnaire.calendar(in: timeZone)
    }

    private let calendar: ScheduleCalendar?
    private enum CodingKeys: String, CodingKey {
        case id, title, schedule, changeable, mode, perDay, times, days, nextReminder
    }

    func print(_ console: Console) {
        console.line("\(title) (\(id)): \(schedule)")
        console.line("  " + L(changeable ? "tys.reminders.mayChange" : "tys.reminders.fixedByStudy"))
        if let perDay {
            console.line("  " + L("tys.reminders.standardLine", ["count": "\(perDay)"]))
        } else if mode == "custom", days != nil {
            console.line("  " + L("tys.reminders.customLine", ["times": times.joined(separator: ", ")]))
        } else if let calendar, let time = times.first {
            console.line("  " + L(calendar.period == .week ? "tys.reminders.weeklyLine" : "tys.reminders.monthlyLine", ["day": calendar.period == .week ? calendar.firstDay.weekday.localizedName : "\(calendar.firstDay.day)",
                                         "time": time]))
        }
        if let days {
            console.table(TextTable(columns: [.init(minimumWidth: 11)], rows: days.map { day in
                [Weekday.allCases.first { "\($0)" == day.weekday }?.localizedName ?? day.weekday,
                 day.enabled ? "\(day.start)–\(day.end)" : L("tys.reminders.off")]
            }, indent: 4))
        }
        console.line("  " + (nextReminder.map { L("tys.reminders.next", ["time": $0]) } ?? L("tys.reminders.noNext")))
    }
}
