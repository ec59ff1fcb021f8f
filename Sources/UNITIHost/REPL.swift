import Foundation
import UNITICore

/// The read–run loop: reads command lines (with line editing on a terminal, plain lines from a
/// pipe or script) until `exit`, Ctrl-D or the end of input.
struct REPL {
    let shell: Shell
    let editor: LineEditor?

    /// Runs the loop and returns the exit status: 0, or 1 when a command failed in a
    /// non-interactive session (so scripts can tell).
    func run() -> Int32 {
        var failed = false
        if editor != nil {
            installInterruptHandler()
            shell.console.line(shell.localizer("host.welcome", ["program": shell.program.programName]))
            shell.remindDueVisits()
        }
        StartScreen.applying(to: shell, interactive: editor != nil)?.run()
        if let module = shell.currentModule, shell.hasNeededAccount(module) {
            // A standalone program starts inside its module: its start hook runs now.
            do {
                try (module as? any ModuleEntering)?.didEnter(shell.context(for: module))
            } catch {
                shell.console.error(shell.localizer("host.error.prefix", ["message": (error as? UNITIError)?.message ?? "\(error)"]))
            }
        }
        // A module may end the program from its start hook (a standalone check-in that was due).
        if shell.services.endOfProgramRequested.value { return 0 }
        // Reminders are announced before each prompt of an interactive session (scripts and
        // pipes keep their output to the commands they ran).
        let notifier = PromptReminderNotifier(base: shell.terminalReminderNotifier(), console: shell.console)
        let reminders = editor != nil ? ReminderMonitor(service: shell.reminderService(), notifier: notifier) : nil
        if let editor, let reminders {
            // A reminder that falls due while the prompt waits shows at once, above the prompt;
            // what waits for the server is tried again on the sync schedule, silently.
            editor.onIdle = { [shell] in
                shell.retrySyncIfDue()
                notifier.atPrompt.value = true
                defer { notifier.atPrompt.value = false }
                return !reminders.check().isEmpty
            }
        }
        while true {
            reminders?.check()
            let line: String?
            do {
                if let editor {
                    line = try editor.readCommand(prompt: shell.prompt)
                } else {
                    line = try shell.services.input.readLine(prompt: "")
                }
            } catch {
                continue  // Ctrl-C abandons the line; the prompt comes back
            }
            guard let line else {
                if editor != nil { shell.console.line() }
                break
            }
            Interrupt.reset()
            // `z` right after a prompt was announced: "remind me in 10 minutes" (issue 30).
            let snoozes = line.trimmingCharacters(in: .whitespaces) == PromptReminderNotifier.snoozeKey && notifier.announced.value
            notifier.announced.value = false
            let outcome = shell.execute(line: snoozes ? "reminders snooze" : line)
            reminders?.invalidate()  // the command may have changed rules
            if outcome == .failure { failed = true }
            if outcome == .exit { break }
        }
        return (failed && editor == nil) ? 1 : 0
    }

    /// On a terminal, Ctrl-C during a running command sets `Interrupt` instead of ending the
    /// program (while a line is edited, the editor handles Ctrl-C itself).
    private func installInterruptHandler() {
        signal(SIGINT) { _ in Interrupt.request() }
    }
}

/// Announces reminders in the interactive shell: between commands like the terminal notifier;
/// while the prompt waits for a key (`atPrompt`) it first clears the prompt's line, so the
/// reminder takes its place and the line editor draws the prompt again below it.
final class PromptReminderNotifier: ReminderNotifier, @unchecked Sendable {
    let base: TerminalNotifier
    let console: Console
    let atPrompt = LockedValue(false)
    /// Whether a prompt was announced since the last command: then ``snoozeKey`` snoozes it.
    let announced = LockedValue(false)
    /// The line that snoozes the prompt just announced.
    static let snoozeKey = "z"

    init(base: TerminalNotifier, console: Console) {
        self.base = base
        self.console = console
    }

    func deliver(_ reminder: PlannedReminder) -> String {
        if atPrompt.value { console.write("\r\u{1B}[2K") }
        let channel = base.deliver(reminder)
        if reminder.questionnaireID != nil {
            announced.value = true
            console.line(L("reminders.snooze.hint", ["key": Self.snoozeKey]))
        }
        return channel
    }
}
