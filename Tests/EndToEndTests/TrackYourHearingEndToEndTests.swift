import Foundation
import Testing
import UNITITesting

/// The standalone `track-your-hearing` against a real `uniti-server` on loopback (Track Your
/// Hearing thesis FR1–FR11): registration with its checks, a study with the hearing
/// questionnaire and rewards on, sheets over three days, rewards computed by the server and the
/// same on a second device, statistics, and a study that does not let participants leave.
enum SimulatedDays {
    /// `days` after today at `hour`:00 in +01:00, as ISO 8601.
    static func dayAfterToday(_ days: Int, hour: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 3600)!
        let day = calendar.date(byAdding: .day, value: days, to: calendar.startOfDay(for: Date()))!
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02dT%02d:00:00+01:00", parts.year!, parts.month!, parts.day!, hour)
    }
}

@Suite("Track Your Hearing standalone against a real server", .enabled(if: !Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct TrackYourHearingEndToEndTests {
    static let program = "track-your-hearing"
    /// Answers to the bundled hearing questionnaire, one per question.
    static func answers(_ impairment: Int) -> String { "\(impairment)\n3\n0\n60\n4\n2\n" }

    /// `day` 1, 2, 3 are the three days after today (the study is joined today, and a schedule
    /// counts from the join), at `hour` in +01:00, through the program's shifted clock.
    static func run(_ data: TemporaryDataDirectory, _ server: StudyServer, _ command: String, stdin: String = "",
                    day: Int? = nil, hour: Int = 9) throws -> Program.Result {
        var environment: [String: String] = [:]
        if let day { environment["UNITI_CLOCK_START"] = SimulatedDays.dayAfterToday(day, hour: hour) }
        return try Program.run(program, ["--data-dir", data.path, "--server", server.url, "-c", command], stdin: stdin,
                               environment: environment)
    }

    @Test("register (each check), join, answer over three days: rewards and streak from the server, the same on a second device; stats; leaving refused")
    func journey() throws {
        let server = try StudyServer()
        let created = try server.coordinator(["study", "create", "hearing", "--title", "Hearing in daily life", "--access", "public",
                                              "--modules", "tyh", "--running", "--no-participants-may-leave"])
        #expect(created.status == 0, "\(created.err)")
        let definition = Repository.questionnaire("tyh-hearing")
        #expect(try server.coordinator(["questionnaire", "import", definition, "--study", "hearing"]).status == 0)
        let rewardsOn = try server.coordinator(["study", "update", "hearing", "--rewards", "on"])
        #expect(rewardsOn.status == 0, "\(rewardsOn.err)")

        let phone = TemporaryDataDirectory()
        // Each detail is checked as it is typed; a wrong one ends registration with one line.
        for (stdin, message) in [("ab\n", "username"), ("hanna\nhanna.example.org\n", "e-mail"),
                                 ("hanna\nhanna@example\n", "e-mail"),
                                 ("hanna\nhanna@example.org\nhanna@example.com\n", "differ"),
                                 ("hanna\nhanna@example.org\nhanna@example.org\nshort\nshort\n", "at least 8"),
                                 ("hanna\nhanna@example.org\nhanna@example.org\nlong-enough\nlong-enougH\n", "differ")] {
            let refused = try Self.run(phone, server, "register", stdin: stdin)
            #expect(refused.status == 1, "\(stdin)")
            #expect(refused.err.split(separator: "\n").count == 1, "\(refused.err)")
            #expect(refused.err.lowercased().contains(message), "\(refused.err)")
        }
        let register = try Self.run(phone, server, "register", stdin: "hanna\nhanna@example.org\nhanna@example.org\nlong-enough\nlong-enough\n")
        #expect(register.status == 0, "\(register.err)")
        #expect(try Self.run(phone, server, "fill").err.contains("needs an account"))
        let code = try #require(try server.mailedCode(to: "hanna@example.org"))
        #expect(try Self.run(phone, server, "activate \(code)").status == 0)
        #expect(try Self.run(phone, server, "login hanna@example.org", stdin: "long-enough\n").status == 0)
        #expect(try Self.run(phone, server, "study join hearing").status == 0)

        // The profile (FR3): names, and gender behind a disclosure switch, stored on the server.
        let edit = try Self.run(phone, server, "profile edit", stdin: "\nHanna\nMeyer\ny\n4\n\n")
        #expect(edit.status == 0, "\(edit.err)")
        let profile = try Self.run(TemporaryDataDirectory(), server, "login hanna", stdin: "long-enough\n")
        #expect(profile.status == 0)
        let shown = try Self.run(phone, server, "profile")
        #expect(shown.out.contains("Hanna") && shown.out.contains("Meyer") && shown.out.contains("not applicable"), "\(shown.out)")
        let hidden = try Self.run(phone, server, "profile edit", stdin: "\n\n\nn\n\n")
        #expect(hidden.status == 0, "\(hidden.err)")
        #expect(try Self.run(phone, server, "profile").out.contains("not disclosed"))
        let wrong = try Self.run(phone, server, "profile edit", stdin: "\n\n\nmaybe\n")
        #expect(wrong.status == 1 && wrong.err.contains("type y or n"))
        // Reminders off: no sheet is "on time", so the points are the same on every run.
        #expect(try Self.run(phone, server, "planner off").status == 0)

        // Four sheets a day on three days.
        var lastFill = ""
        for day in 1...3 {
            for hour in [9, 12, 15, 18] {
                let fill = try Self.run(phone, server, "fill", stdin: Self.answers(day * 10 + hour), day: day, hour: hour)
                #expect(fill.status == 0, "\(fill.err)")
                lastFill = fill.out
            }
        }
        #expect(lastFill.contains("+10 points · 3-day streak"), "\(lastFill)")
        let rewards = try Self.run(phone, server, "rewards", day: 3, hour: 20)
        #expect(rewards.out.contains("120 points, level 2"), "\(rewards.out)\(rewards.err)")
        #expect(rewards.out.contains("streak: 3 days in a row"))
        #expect(rewards.out.contains("first answer") && rewards.out.contains("10 answers") && rewards.out.contains("3 days in a row"))

        // The same on another device after logging in: the server counted them.
        let laptop = TemporaryDataDirectory()
        #expect(try Self.run(laptop, server, "login hanna", stdin: "long-enough\n").status == 0)
        let phoneJSON = try Self.run(phone, server, "rewards --json", day: 3, hour: 20).out
        let laptopJSON = try Self.run(laptop, server, "rewards --json", day: 3, hour: 20).out
        #expect(!phoneJSON.isEmpty && phoneJSON == laptopJSON)
        #expect(try Self.run(laptop, server, "sync").status == 0)
        let stats = try Self.run(laptop, server, "stats --json")
        let object = try JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any]
        #expect(object?["completed"] as? Int == 12)
        #expect((object?["lastTen"] as? [Any])?.count == 10)

        // Editing the local database does not raise the rewards: the server counts its own sheets.
        _ = try SQLiteShell.query(phone.path + "/uniti.sqlite",
                                  "UPDATE core_settings SET value = replace(value, '\"points\":120', '\"points\":9999') WHERE key LIKE 'tyh.rewards%'")
        #expect(try Self.run(phone, server, "rewards", day: 3, hour: 21).out.contains("120 points"))

        let leave = try Self.run(phone, server, "study leave hearing", stdin: "y\n")
        #expect(leave.status == 1)
        #expect(leave.err.contains("this study cannot be left from the app"), "\(leave.err)")
        #expect(try Self.run(phone, server, "studies --json").out.contains("hearing"))
    }
}

/// Track Your Hearing in the shell, where nothing needs a server.
@Suite("Track Your Hearing in the shell", .enabled(if: Builds.isIntegrated), .timeLimit(.minutes(15)))
struct TrackYourHearingShellTests {
    @Test("killed after three answers (kill -9): nothing is sent or stored as finished, and the next fill continues at question 4")
    func draftSurvivesKill() throws {
        let data = TemporaryDataDirectory()
        let running = try Program.start("uniti", ["--data-dir", data.path, "-c", "tyh fill"])
        running.write("40\n3\n0\n")
        #expect(running.waitForOutput("4/6 "))
        running.kill9()
        let sheets = try SQLiteShell.query(data.path + "/uniti.sqlite", "SELECT COUNT(*) FROM core_answer_sheets")
        #expect(sheets == ["0"])
        let resumed = try Program.run("uniti", ["--data-dir", data.path, "-c", "tyh fill"], stdin: "y\n60\n4\n2\n")
        #expect(resumed.status == 0, "\(resumed.err)")
        #expect(resumed.out.contains("4/6 ") && !resumed.out.contains("1/6 "), "\(resumed.out)")
        let answers = try SQLiteShell.query(data.path + "/uniti.sqlite",
                                            "SELECT json_extract(sheet, '$.answers.impairment.value'), json_extract(sheet, '$.answers.arousal.value') FROM core_answer_sheets")
        #expect(answers == ["40|2"] || answers == ["40.0|2.0"], "\(answers)")
    }
}
