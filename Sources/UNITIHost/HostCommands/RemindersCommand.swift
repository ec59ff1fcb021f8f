import ArgumentParser
import Foundation
import UNITICore

/// `reminders [list|run|export]`: what the modules plan to remind, delivered in the foreground
/// or exported as a calendar. The planning itself lives in UNITICore (``ReminderService``).
struct RemindersCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "reminders", abstract: L("reminders.abstract"),
                             subcommands: [List.self, Run.self, Export.self, Snooze.self], defaultSubcommand: List.self)
    }

    func run(in shell: Shell) throws {
        try List().run(in: shell)
    }

    static func checkDays(_ days: Int) throws {
        guard (1...3660).contains(days) else { throw UNITIError(L("reminders.error.days", ["days": "\(days)"])) }
    }

    /// `reminders list [--days N] [--json]`
    struct List: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: L("reminders.list.abstract"))
        }

        @Option(help: ArgumentHelp(L("reminders.list.days"))) var days = 7
        @OptionGroup var output: JSONOutput

        struct Listing: Encodable {
            let timeZone: String
            let from: Date
            let to: Date
            let reminders: [PlannedReminder]
        }

        func run(in shell: Shell) throws {
            try RemindersCommand.checkDays(days)
            let service = shell.reminderService()
            let now = service.clock.now
            let end = now.addingTimeInterval(Double(days) * 86_400)
            let reminders = try service.planned(from: now, to: end)
            if output.isRequested(in: shell.services) {
                try shell.console.json(Listing(timeZone: service.timeZone.identifier, from: now, to: end, reminders: reminders))
                return
            }
            let l = shell.localizer
            guard !reminders.isEmpty else {
                shell.console.line(l("reminders.list.none", count: days))
                return
            }
            shell.console.line(l("reminders.list.header", count: days, ["reminders": "\(reminders.count)"]))
            shell.console.table(TextTable(rows: reminders.map { reminder in
                let local = LocalDate(reminder.date, in: service.timeZone)
                let time = TimeOfDay(localTimeOf: reminder.date, in: service.timeZone)
                let day = String(local.weekday.localizedName.prefix(2))
                return ["\(day) \(local)", "\(time)", reminder.moduleID, reminder.command]
            }))
        }
    }

    /// `reminders run [--for SECONDS] [--count N]`
    struct Run: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "run", abstract: L("reminders.run.abstract"))
        }

        @Option(name: .customLong("for"), help: ArgumentHelp(L("reminders.run.for"), valueName: "seconds"))
        var seconds: Double?
        @Option(help: ArgumentHelp(L("reminders.run.count"))) var count: Int?
        @Flag(help: ArgumentHelp(L("reminders.run.terminal"))) var terminal = false

        func run(in shell: Shell) throws {
            if let seconds, !(seconds > 0) { throw UNITIError(L("reminders.error.seconds", ["seconds": "\(seconds)"])) }
            if let count, count < 1 { throw UNITIError(L("reminders.error.runCount", ["count": "\(count)"])) }
            let service = shell.reminderService()
            let environment = terminal ? [:] : ProcessInfo.processInfo.environment
            let notifier = DesktopNotifier(environment: environment, fallback: shell.terminalReminderNotifier(),
                                           timeZone: service.timeZone)
            let l = shell.localizer
            let channel = l(notifier.usesDesktop ? "reminders.run.channel.desktop" : "reminders.run.channel.terminal")
            shell.console.error(l("reminders.run.started", ["channel": channel]))
            // Ctrl-C stops the daemon cleanly, also under `uniti -c` where the shell installed no handler.
            let previous = signal(SIGINT) { _ in Interrupt.request() }
            defer { signal(SIGINT, previous) }
            // While it waits, the daemon also sends answers that wait in the outbox, on the back-off
            // a shell at its prompt uses (shared through the database): a daemon left running
            // delivers what was answered offline once the server can be reached again.
            let delivered = try ReminderDaemon(service: service, notifier: notifier)
                .run(for: seconds, count: count, whileWaiting: { shell.retrySyncIfDue() })
            shell.waitForBackgroundSync()
            Interrupt.reset()
            shell.console.error(l("reminders.run.stopped", count: delivered.count))
        }
    }

    /// `reminders snooze`: "remind me in 10 minutes" about the prompt just delivered, once and
    /// only inside its completion window; for scripts and for the shell after an announcement.
    struct Snooze: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "snooze", abstract: L("reminders.snooze.abstract"))
        }

        func run(in shell: Shell) throws {
            let prompts = PromptLog(database: shell.services.database, clock: shell.services.clock)
            let now = shell.services.clock.now
            guard let prompt = try prompts.snoozable(at: now), let again = try prompts.snooze(prompt, at: now) else {
                throw UNITIError(L("reminders.snooze.none"))
            }
            shell.console.line(shell.localizer("reminders.snooze.done",
                                               ["time": "\(TimeOfDay(localTimeOf: again, in: shell.services.clock.timeZone))"]))
        }
    }

    /// `reminders export FILE.ics [--days N]`
    struct Export: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "export", abstract: L("reminders.export.abstract"))
        }

        @Argument(help: ArgumentHelp(L("reminders.export.file"))) var file: String
        @Option(help: ArgumentHelp(L("reminders.export.days"))) var days = 28

        func run(in shell: Shell) throws {
            try RemindersCommand.checkDays(days)
            guard file.lowercased().hasSuffix(".ics") else {
                throw UNITIError(L("reminders.error.icsExtension", ["path": file]))
            }
            let service = shell.reminderService()
            let now = service.clock.now
            let reminders = try service.planned(from: now, to: now.addingTimeInterval(Double(days) * 86_400))
            let text = ICalendarExport().calendar(for: reminders, stamp: now)
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
            } catch {
                throw UNITIError(L("reminders.error.cannotWrite", ["path": file, "reason": error.localizedDescription]))
            }
            shell.console.line(shell.localizer("reminders.export.done", count: reminders.count, ["path": file]))
        }
    }
}
