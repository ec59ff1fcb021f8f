import Foundation
import UNITITesting
import Testing

/// The interactive REPL on a pseudo-terminal: line editing, completion, Ctrl-C, Ctrl-D, history.
@Suite("Interactive shell", .enabled(if: Builds.isIntegrated), .timeLimit(.minutes(15)))
struct InteractiveShellTests {
    @Test("Tab completes a command, Ctrl-C abandons the line without leaving, Ctrl-D leaves")
    func editingKeys() throws {
        let data = TemporaryDataDirectory()
        let terminal = try Terminal("uniti", ["--data-dir", data.path])
        #expect(terminal.waitFor("uniti> "))
        // The editor redraws only what changed, so check the effect: Enter runs `modules`.
        terminal.type("modu\t")
        #expect(terminal.waitFor("les "))
        terminal.type("\r")
        #expect(terminal.waitFor("TrackYourTinnitus"))
        #expect(terminal.waitForPrompt("uniti> ", after: "ShadesOfNoise"))
        terminal.type("this line is abandoned\u{03}")
        #expect(terminal.waitFor("^C\r\n"))
        #expect(terminal.waitFor("uniti> ", after: terminal.output.range(of: "^C")?.upperBound))
        terminal.type("use tyt\r")
        #expect(terminal.waitFor("uniti/tyt> "))
        usleep(100_000)
        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)
        #expect(!terminal.output.contains("unknown command 'this"))
    }

    @Test("a reminder that falls due while the prompt waits shows at once; the line typed so far is kept")
    func reminderWhilePromptWaits() throws {
        let data = TemporaryDataDirectory()
        let utc = ["TZ": "UTC"]
        let due = try Self.reminderSoon(data)

        let terminal = try Terminal("uniti", ["--data-dir", data.path], environment: utc)
        #expect(terminal.waitFor("uniti> "))
        terminal.type("modu")
        let seconds = due.timeIntervalSinceNow + 10
        #expect(terminal.waitFor("time for a check-in, type `tyt fill`", timeout: seconds), "\(terminal.output)")
        // The prompt comes back below the reminder with the unfinished line; Enter runs it.
        terminal.type("les\r")
        #expect(terminal.waitFor("TrackYourTinnitus", after: terminal.output.range(of: "time for a check-in")?.upperBound))
        // Ctrl-D only once the prompt is back: typed while `modules` still runs, the terminal is
        // in cooked mode and turns it into an end of input nobody reads, and the shell never sees it.
        #expect(terminal.waitFor("uniti> ", after: terminal.output.range(of: "TrackYourTinnitus", options: .backwards)?.upperBound))
        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("z and Enter right after a prompt is announced snooze it: reminded again ten minutes later, the snooze recorded")
    func snoozeKey() throws {
        let data = TemporaryDataDirectory()
        let utc = ["TZ": "UTC"]
        let due = try Self.reminderSoon(data)

        let terminal = try Terminal("uniti", ["--data-dir", data.path], environment: utc)
        #expect(terminal.waitFor("uniti> "))
        // Before any prompt, `z` is no command of its own: it is not taken as a snooze.
        terminal.type("z\r")
        #expect(terminal.waitFor("'z'"), "\(terminal.output)")
        #expect(terminal.waitFor("z + Enter", timeout: due.timeIntervalSinceNow + 10), "\(terminal.output)")
        terminal.type("z\r")
        let again = ISO8601DateFormatter.string(from: due.addingTimeInterval(600), timeZone: TimeZone(identifier: "UTC")!,
                                                formatOptions: [.withTime, .withColonSeparatorInTime]).prefix(5)
        #expect(terminal.waitFor("Reminding you again at", after: terminal.output.range(of: "z + Enter")?.upperBound), "\(terminal.output)")
        #expect(terminal.output.contains(String(again)), "\(again) in \(terminal.output)")
        #expect(terminal.waitFor("uniti> ", after: terminal.output.range(of: "Reminding you again")?.upperBound))
        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)
        let kinds = try SQLiteShell.query(data.path + "/uniti.sqlite", "SELECT kind FROM core_prompt_events ORDER BY rowid")
        #expect(kinds.contains("snoozed") && kinds.contains("delivered"), "\(kinds)")
    }

    @Test("history is kept in the data directory with mode 0600 and comes back in the next run")
    func historyPersists() throws {
        let data = TemporaryDataDirectory()
        let first = try Terminal("uniti", ["--data-dir", data.path])
        #expect(first.waitFor("uniti> "))
        first.type("version\r")
        #expect(first.waitFor("(integrated build)"))
        #expect(first.waitForPrompt("uniti> ", after: "(integrated build)"))
        first.type("exit\r")
        #expect(first.waitForExit() == 0)
        let history = data.path + "/history"
        let mode = try FileManager.default.attributesOfItem(atPath: history)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try String(contentsOfFile: history, encoding: .utf8).contains("version"))

        let second = try Terminal("uniti", ["--data-dir", data.path])
        #expect(second.waitFor("uniti> "))
        // Up arrow twice: "exit" then "version" from the last run.
        second.type("\u{1b}[A\u{1b}[A\r")
        #expect(second.waitFor("(integrated build)"))
        #expect(second.waitForPrompt("uniti> ", after: "(integrated build)"))
        second.type("\u{04}")
        #expect(second.waitForExit() == 0)
    }

    /// Sets a tyt reminder for the next whole minute (UTC) at least three seconds away, so the
    /// shell's prompt is up before it falls due; returns the due time.
    static func reminderSoon(_ data: TemporaryDataDirectory) throws -> Date {
        let now = Date().timeIntervalSince1970
        let due = Date(timeIntervalSince1970: ((now + 3) / 60).rounded(.up) * 60)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: due)
        let day = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][parts.weekday! - 1]
        let time = String(format: "%02d:%02d", parts.hour!, parts.minute!)
        let add = try Program.run("uniti", ["--data-dir", data.path, "-c", "tyt notify add \(day) \(time)"], environment: ["TZ": "UTC"])
        #expect(add.status == 0, "\(add.err)")
        return due
    }
}
