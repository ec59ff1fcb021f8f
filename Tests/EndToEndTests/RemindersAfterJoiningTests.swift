import Foundation
import Testing
import UNITITesting

/// A reminder is due only if its rule already held at its time (issue 29, point 4), with the
/// real `uniti` against a real `uniti-server`: a study joined at 18:07 brings a weekly
/// questionnaire whose reminder is at 18:00, and the reminder daemon started at 18:08 must not
/// announce the 18:00 one (the planner works from today's rules, and up to an hour late counts
/// as due); a week later the same reminder comes.
@Suite("Reminders after joining a study, with the real programs", .enabled(if: Builds.isIntegrated), .serialized,
       .timeLimit(.minutes(3)))
struct RemindersAfterJoiningTests {
    static let weekly = """
    {"id": "stress-weekly", "version": 1, "title": {"en": "Stress this week", "de": "Stress diese Woche"}, "kind": "repeating",
     "schedule": {"frequency": "weekly", "timing": "between", "amount": 1},
     "items": [{"type": "slider", "label": "stress", "text": "How stressed was your week?", "required": true,
                "min": 0, "max": 100, "step": 1}]}
    """

    /// `days` after today at `time` (HH:MM) in UTC, as ISO 8601 for `UNITI_CLOCK_START`.
    static func at(_ days: Int, _ time: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.date(byAdding: .day, value: days, to: calendar.startOfDay(for: Date()))!
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02dT%@:00+00:00", parts.year!, parts.month!, parts.day!, time)
    }

    @Test("joined at 18:07: the daemon at 18:08 announces nothing from 18:00; a week later the 18:00 reminder comes")
    func joinAfterReminderTime() throws {
        let server = try StudyServer()
        let folder = TemporaryDataDirectory()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let file = folder.path + "/weekly.json"
        try Self.weekly.write(toFile: file, atomically: true, encoding: .utf8)
        let created = try server.coordinator(["study", "create", "weekly", "--title", "Weekly stress", "--access", "public",
                                              "--modules", "tys", "--running"])
        #expect(created.status == 0, "\(created.err)")
        let imported = try server.coordinator(["questionnaire", "import", file, "--study", "weekly", "--module", "tys"])
        #expect(imported.status == 0, "\(imported.err)")

        let data = TemporaryDataDirectory()
        func run(_ command: String, at clock: String, stdin: String = "") throws -> Program.Result {
            try Program.run("uniti", ["--data-dir", data.path, "--server", server.url, "-c", command], stdin: stdin,
                            environment: ["TZ": "UTC", "UNITI_CLOCK_START": clock])
        }
        let register = try run("register", at: Self.at(1, "17:00"),
                               stdin: "lena\nlena@example.org\nlena@example.org\nweekly-pass-1\nweekly-pass-1\n")
        #expect(register.status == 0, "\(register.err)")
        let code = try #require(try server.mailedCode(to: "lena@example.org"))
        #expect(try run("activate \(code)", at: Self.at(1, "17:01")).status == 0)
        #expect(try run("login lena", at: Self.at(1, "17:02"), stdin: "weekly-pass-1\n").status == 0)

        let joined = try run("study join weekly", at: Self.at(1, "18:07"))
        #expect(joined.status == 0, "\(joined.err)")
        // The rule exists, with its reminder at 18:00 on this weekday.
        let listed = try run("reminders list --days 8", at: Self.at(1, "18:08"))
        #expect(listed.out.contains("18:00") && listed.out.contains("tys fill stress-weekly"), "\(listed.out)")

        let right = try run("reminders run --terminal --for 2", at: Self.at(1, "18:08"))
        #expect(right.status == 0, "\(right.err)")
        #expect(!right.out.contains("TrackYourStress"), "a reminder from before the study was joined: \(right.out)")
        #expect(right.err.contains("0 reminders delivered"), "\(right.err)")

        let weekLater = try run("reminders run --terminal --for 2", at: Self.at(8, "18:05"))
        #expect(weekLater.out.contains("TrackYourStress") && weekLater.out.contains("18:00"), "\(weekLater.out)\(weekLater.err)")
        #expect(weekLater.err.contains("1 reminder delivered"), "\(weekLater.err)")
    }
}
