import Foundation
import Testing
import UNITICore
import UNITITesting

/// Several real processes on one data directory at the same moment, as people run them: the
/// shell in two terminals, the reminder daemon beside the shell, scripts. Each test runs many
/// rounds; none sleeps to make things line up.
@Suite("One data directory, several programs at once", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct ConcurrencyTests {
    static let answers = "yes\n35\n60\n4\n2\n50\n80\n25\n"

    static func uniti(_ data: TemporaryDataDirectory, _ command: String, stdin: String = "") -> (name: String, arguments: [String], stdin: String) {
        ("uniti", ["--data-dir", data.path, "-c", command], stdin)
    }

    /// Rows of a query on a client database, through the sqlite3 shell.
    static func query(_ data: TemporaryDataDirectory, _ sql: String) throws -> [String] {
        try SQLiteShell.query(data.path + "/uniti.sqlite", sql)
    }

    /// Waits until the program asks its `number`th question (the line protocol ends each question
    /// with its required mark and accepted values, `* (0–100)`).
    static func waitForQuestion(_ number: Int, of program: Program.Running, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if program.out.components(separatedBy: "* (").count - 1 >= number { return true }
            usleep(5_000)
        }
        return false
    }

    @Test("two simultaneous fills store both sheets: 10 rounds of two, and one round of eight")
    func simultaneousFillsStoreBoth() throws {
        let data = TemporaryDataDirectory()
        #expect(try Program.run("uniti", ["--data-dir", data.path, "-c", "modules"]).status == 0)
        var expected = 0
        for round in 0..<11 {
            let count = round == 10 ? 8 : 2
            let results = try Program.runTogether(Array(repeating: Self.uniti(data, "tyt fill", stdin: Self.answers), count: count))
            for result in results {
                #expect(result.status == 0, "round \(round): \(result.err)")
                #expect(!result.err.contains("SQLite"), "round \(round): \(result.err)")
            }
            expected += count
            #expect(try Self.query(data, "SELECT COUNT(*) FROM tyt_results") == ["\(expected)"], "round \(round)")
            #expect(try Self.query(data, "SELECT COUNT(*) FROM core_outbox WHERE kind = 'answerSheet'") == ["\(expected)"])
            #expect(try Self.query(data, "SELECT COUNT(*) FROM core_questionnaire_drafts") == ["0"])
        }
    }

    @Test("programs opening a new data directory at the same moment all start, and each migration step runs once")
    func simultaneousFirstStarts() throws {
        for round in 0..<8 {
            let data = TemporaryDataDirectory()
            let results = try Program.runTogether(Array(repeating: Self.uniti(data, "modules"), count: 6))
            for result in results {
                #expect(result.status == 0, "round \(round): \(result.err)")
            }
            let steps = try Self.query(data, "SELECT COUNT(*), COUNT(DISTINCT identifier) FROM grdb_migrations")
            #expect(steps.count == 1 && steps[0].split(separator: "|").count == 2)
            let parts = steps.first?.split(separator: "|") ?? []
            #expect(parts.count == 2 && parts[0] == parts[1] && (Int(parts[0]) ?? 0) > 10)
        }
    }

    @Test("a person at a terminal is told at once when another window answers the same questionnaire; a script waits its turn")
    func answeringElsewhere() throws {
        let data = TemporaryDataDirectory()
        // Someone is answering in another window: the first answer given, the program waits for the next.
        let other = try Program.start("uniti", ["--data-dir", data.path, "-c", "tyt fill"])
        other.write("yes\n")
        #expect(Self.waitForQuestion(2, of: other), "\(other.out)")
        // A script with all its answers waits, and stores its sheet once the other window is done.
        let script = try Program.start("uniti", ["--data-dir", data.path, "-c", "tyt fill"])
        script.write(Self.answers)
        usleep(300_000)
        #expect(script.process.isRunning, "the script did not wait for the other window")
        let first = other.finish(stdin: "35\n60\n4\n2\n50\n80\n25\n")
        #expect(first.status == 0, "\(first.err)")
        let second = script.finish()
        #expect(second.status == 0, "\(second.err)")
        #expect(try Self.query(data, "SELECT COUNT(*) FROM tyt_results") == ["2"])
    }

    @Test("two syncs at once deliver every sheet exactly once (5 rounds)")
    func simultaneousSyncs() throws {
        let setup = try SyncEndToEndTests.Setup()
        var expected = 0
        for round in 0..<5 {
            for _ in 0..<3 {
                #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
            }
            expected += 3
            let sync = ("uniti", ["--data-dir", setup.data.path, "--server", setup.server.url, "-c", "sync"], "")
            let results = try Program.runTogether([sync, sync])
            for result in results {
                #expect(result.status == 0, "round \(round): \(result.err)")
            }
            #expect(try setup.sheetsOnServer() == expected, "round \(round)")
            #expect(try setup.pending() == 0)
        }
    }

    @Test("a due reminder is shown by one of two daemons running at once, not by both (5 rounds)")
    func reminderDeliveredOnce() throws {
        let utc = TimeZone(identifier: "UTC")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        for round in 0..<5 {
            let data = TemporaryDataDirectory()
            let now = Date().addingTimeInterval(-120)
            let parts = calendar.dateComponents([.weekday, .hour, .minute], from: now)
            let day = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][parts.weekday! - 1]
            let time = String(format: "%02d:%02d", parts.hour!, parts.minute!)
            // The rule is set ten minutes before its reminder (a reminder counts only when its rule held at its time).
            let formatter = ISO8601DateFormatter()
            let before = formatter.string(from: now.addingTimeInterval(-600))
            let add = try Program.run("uniti", ["--data-dir", data.path, "-c", "tyt notify add \(day) \(time)"],
                                      environment: ["TZ": "UTC", "UNITI_CLOCK_START": before])
            #expect(add.status == 0, "\(add.err)")
            let daemon = ("uniti", ["--data-dir", data.path, "-c", "reminders run --terminal --count 1 --for 3"], "")
            let results = try Program.runTogether([daemon, daemon], environment: ["TZ": "UTC"])
            let shown = results.map { $0.out.components(separatedBy: "tyt fill").count - 1 }.reduce(0, +)
            #expect(shown == 1, "round \(round): \(results.map(\.out))")
        }
    }

    @Test("a command that only shows something writes nothing to the database (strace)")
    func readOnlyCommandWritesNothing() throws {
        let data = TemporaryDataDirectory()
        #expect(try Program.run("uniti", ["--data-dir", data.path, "-c", "tyt fill"], stdin: Self.answers).status == 0)
        for command in ["modules", "tyt results", "status", "sync --status"] {
            let trace = data.path + ".trace"
            defer { try? FileManager.default.removeItem(atPath: trace) }
            let result = try Program.run("/usr/bin/strace", ["-f", "-y", "-o", trace, "-e", "trace=pwrite64,write,fsync,fdatasync,ftruncate",
                                                             Program.path("uniti"), "--data-dir", data.path, "-c", command])
            #expect(result.status == 0, "\(command): \(result.err)")
            let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            let database = lines.filter { $0.contains("uniti.sqlite>") || $0.contains("uniti.sqlite-wal>") || $0.contains("fsync") || $0.contains("fdatasync") }
            #expect(database.isEmpty, "\(command) wrote: \(database.prefix(5))")
        }
    }

    @Test("killed with SIGKILL at any moment of a fill, every answer given before is kept as a draft and the fill resumes (12 rounds)")
    func killedFillKeepsAnswers() throws {
        var random = RandomSourceGenerator(source: SeededRandomSource(seed: 42))
        let lines = Self.answers.split(separator: "\n").map(String.init)
        for round in 0..<12 {
            let data = TemporaryDataDirectory()
            let fill = try Program.start("uniti", ["--data-dir", data.path, "-c", "tyt fill"])
            let given = Int.random(in: 1...7, using: &random)
            for index in 0..<given {
                fill.write(lines[index] + "\n")
                // The next question shows once this answer is saved in the draft.
                #expect(Self.waitForQuestion(index + 2, of: fill), "round \(round): \(fill.out)")
            }
            usleep(UInt32.random(in: 0...20_000, using: &random))
            fill.kill9()
            _ = fill.finish()
            let kept = try Self.query(data, "SELECT draft FROM core_questionnaire_drafts").first ?? ""
            let answers = (try? JSONSerialization.jsonObject(with: Data(kept.utf8)) as? [String: Any])?["sheet"] as? [String: Any]
            #expect((answers?["answers"] as? [String: Any])?.count == given, "round \(round): kept \(kept.prefix(200))")
            // Resume and finish: the sheet holds the answers from both sessions.
            let resumed = try Program.run("uniti", ["--data-dir", data.path, "-c", "tyt fill"],
                                          stdin: "yes\n" + lines[given...].joined(separator: "\n") + "\n")
            #expect(resumed.status == 0, "round \(round): \(resumed.err)")
            #expect(try Self.query(data, "SELECT perceived, loudness, distress, mood, arousal, stress, concentration, worstSymptom FROM tyt_results")
                    == ["0|35|60|4|2|50|80|25"], "round \(round)")
        }
    }
}
