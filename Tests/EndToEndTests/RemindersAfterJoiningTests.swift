import Foundation
import Testing
import UNITITesting

/// A reminder is due only if its rule already held at its time (issue 29, point 4), with the
/// real `uniti` against a real `uniti-server`: joining a study that gives Track Your Hearing a
/// questionnaire switches its reminders on (twelve a day at random times). The issue saw
/// "⏰ 09:52 TrackYourHearing" at once after joining at 10:07, because the planner works from
/// today's rules and up to an hour late counts as due. Here the join comes five minutes after a
/// reminder's time, the reminder daemon runs a minute later and must announce nothing; the
/// next reminder, after the join, comes.
@Suite("Reminders after joining a study, with the real programs", .enabled(if: Builds.isIntegrated), .serialized,
       .timeLimit(.minutes(15)))
struct RemindersAfterJoiningTests {
    /// Tomorrow (UTC) at `minutes` after midnight, for `UNITI_CLOCK_START`.
    static func clock(_ day: String, _ minutes: Int) -> String {
        String(format: "%@T%02d:%02d:00Z", day, minutes / 60, minutes % 60)
    }

    /// The times (minutes after midnight) of the tyh reminders a `reminders list` printed for `day`.
    static func hearingTimes(_ listing: String, on day: String) -> [Int] {
        listing.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count >= 4, words[1] == day, words[3] == "tyh" else { return nil }
            let parts = words[2].split(separator: ":").compactMap { Int($0) }
            return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
        }
    }

    @Test("joined five minutes after a reminder's time: the daemon a minute later announces nothing; the next reminder comes")
    func joinAfterReminderTime() throws {
        let server = try StudyServer()
        let created = try server.coordinator(["study", "create", "hearing", "--title", "Hearing in daily life", "--access", "public",
                                              "--modules", "tyh", "--running"])
        #expect(created.status == 0, "\(created.err)")
        let definition = Repository.questionnaire("tyh-hearing")
        #expect(try server.coordinator(["questionnaire", "import", definition, "--study", "hearing"]).status == 0)

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: Date()))!
        let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: tomorrow)
        let day = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        let weekday = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][parts.weekday! - 1]

        let data = TemporaryDataDirectory()
        func run(_ command: String, at minutes: Int, in directory: TemporaryDataDirectory? = nil, stdin: String = "") throws -> Program.Result {
            try Program.run("uniti", ["--data-dir", (directory ?? data).path, "--server", server.url, "-c", command], stdin: stdin,
                            environment: ["TZ": "UTC", "UNITI_CLOCK_START": Self.clock(day, minutes)])
        }
        let register = try run("register", at: 5 * 60, stdin: "lena\nlena@example.org\nlena@example.org\nhearing-pass-1\nhearing-pass-1\n")
        #expect(register.status == 0, "\(register.err)")
        let code = try #require(try server.mailedCode(to: "lena@example.org"))
        #expect(try run("activate \(code)", at: 5 * 60 + 1).status == 0)
        #expect(try run("login lena", at: 5 * 60 + 2, stdin: "hearing-pass-1\n").status == 0)
        // Tomorrow's hours, 06:00-10:30; reminders stay off until a study asks for them.
        let window = try run("tyh reminders window \(weekday) 06:00 10:30", at: 5 * 60 + 3)
        #expect(window.status == 0, "\(window.err)")
        #expect(try run("reminders list --days 1", at: 5 * 60 + 4).out.contains("No reminders"))

        // Which times the plan gives that day: asked of a copy of the data directory, with the
        // reminders switched on there from 05:05.
        let copy = TemporaryDataDirectory()
        try? FileManager.default.removeItem(atPath: copy.path)
        try FileManager.default.copyItem(atPath: data.path, toPath: copy.path)
        #expect(try run("tyh reminders on", at: 5 * 60 + 5, in: copy).status == 0)
        let times = Self.hearingTimes(try run("reminders list --days 1", at: 5 * 60 + 6, in: copy).out, on: day)
        #expect(times.count == 12, "\(times)")
        let first = try #require(times.first), second = try #require(times.dropFirst().first)

        // Joined five minutes after the first reminder's time.
        let joined = try run("study join hearing", at: first + 5)
        #expect(joined.status == 0, "\(joined.err)")
        let right = try run("reminders run --terminal --for 2", at: first + 6)
        #expect(right.status == 0, "\(right.err)")
        #expect(!right.out.contains("TrackYourHearing"), "a reminder from before the study was joined: \(right.out)")
        #expect(right.err.contains("0 reminders delivered"), "\(right.err)")

        // The next one, after the join, is announced.
        let next = try run("reminders run --terminal --for 2", at: second + 1)
        #expect(next.out.contains("TrackYourHearing") && next.out.contains(String(format: "%02d:%02d", second / 60, second % 60)),
                "\(next.out)\(next.err)")
        #expect(next.err.contains("1 reminder delivered"), "\(next.err)")
    }
}
