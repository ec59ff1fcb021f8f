import Foundation
import Testing
import UNITITesting

/// Prompts as research data and adherence with the real programs (issue 30): a Track Your Stress
/// participant with four prompts a day (09:00, 12:00, 15:00, 18:00; the daily questionnaire, so
/// the day's later prompts are withdrawn once it is answered) over three simulated days, the
/// `reminders run` daemon delivering each, on both stores:
///
/// - day 1: 09:00 missed; 12:00 snoozed, announced again ten minutes later, answered in time;
/// - day 2: 09:00 and 12:00 missed; 15:00 answered after its 30-minute window (late);
/// - day 3: 09:00 answered in time.
///
/// The participant's `adherence --json` and the coordinator's `uniti-server adherence --format json`
/// must agree exactly, and the export carries each sheet's prompt.
@Suite("Adherence with the real programs", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(20)))
struct AdherenceEndToEndTests {
    static let questionnaire = """
        {"id": "stress-daily", "version": 1, "title": {"en": "Stress today", "de": "Stress heute"}, "kind": "repeating",
         "schedule": {"frequency": "daily", "timing": "between", "amount": 1}, "scheduleChangeable": true,
         "items": [{"type": "slider", "label": "stress", "text": "How stressed are you right now?", "required": true,
                    "min": 0, "max": 100, "step": 1},
                   {"type": "singleChoice", "label": "where", "text": "Where are you?", "required": true,
                    "options": [{"value": 0, "text": "at home"}, {"value": 1, "text": "at work"}]}]}
        """

    /// The counts of one JSON object (the client's `overall`, a server line's `counts`).
    static func counts(_ object: Any?) -> [String: Int] {
        guard let object = object as? [String: Any] else { return [:] }
        var result: [String: Int] = [:]
        for key in ["delivered", "answeredInTime", "late", "missed", "open", "withdrawn"] { result[key] = object[key] as? Int }
        return result
    }

    @Test("four prompts a day over three days: in time, late, snoozed, missed, withdrawn, an answer of the participant's own; device, server and prompt table agree",
          arguments: ["sqlite", "postgres"])
    func threeDays(_ store: String) throws {
        let server = try StudyServer(database: store == "postgres" ? try PostgresCluster.shared().createDatabase() : nil)
        let folder = TemporaryDataDirectory()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let file = folder.path + "/stress-daily.json"
        try Self.questionnaire.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try server.coordinator(["study", "create", "stress", "--title", "Stress", "--access", "public", "--modules", "tys",
                                        "--running"]).status == 0)
        #expect(try server.coordinator(["questionnaire", "import", file, "--study", "stress", "--module", "tys"]).status == 0)
        // A 30-minute window, and answers begun up to 20 minutes after it still answer the prompt (late).
        let updated = try server.coordinator(["questionnaire", "update", "stress-daily", "--study", "stress", "--completion-window", "30",
                                              "--late-answers", "20"])
        #expect(updated.status == 0, "\(updated.err)")

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let first = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: Date()))!
        let data = TemporaryDataDirectory()
        func run(_ command: String, day: Int, _ time: String, stdin: String = "") throws -> Program.Result {
            let date = calendar.date(byAdding: .day, value: day, to: first)!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let clock = String(format: "%04d-%02d-%02dT%@:00Z", parts.year!, parts.month!, parts.day!, time)
            return try Program.run("uniti", ["--data-dir", data.path, "--server", server.url, "-c", command], stdin: stdin,
                                   environment: ["TZ": "UTC", "UNITI_CLOCK_START": clock])
        }
        let register = try run("register", day: 0, "05:00", stdin: "nele\nnele@example.org\nnele@example.org\nstress-pass-1\nstress-pass-1\n")
        #expect(register.status == 0, "\(register.err)")
        let code = try #require(try server.mailedCode(to: "nele@example.org"))
        #expect(try run("activate \(code)", day: 0, "05:01").status == 0)
        #expect(try run("login nele", day: 0, "05:02", stdin: "stress-pass-1\n").status == 0)
        let joined = try run("study join stress", day: 0, "05:03")
        #expect(joined.status == 0, "\(joined.err)")
        #expect(try run("sync", day: 0, "05:04").status == 0)
        let custom = try run("tys reminders custom stress-daily 09:00 12:00 15:00 18:00", day: 0, "05:05")
        #expect(custom.status == 0, "\(custom.err)")

        /// The daemon a minute after a prompt's time: it delivers what is due.
        func deliver(day: Int, _ time: String) throws -> Program.Result {
            let result = try run("reminders run --terminal --for 1", day: day, time)
            #expect(result.status == 0, "\(result.err)")
            return result
        }
        func fill(day: Int, _ time: String) throws {
            let filled = try run("tys fill stress-daily", day: day, time, stdin: "60\n1\nsave\n")
            #expect(filled.status == 0, "\(filled.out)\(filled.err)")
        }

        // Day 1.
        #expect(try deliver(day: 0, "09:01").out.contains("TrackYourStress"))
        #expect(try deliver(day: 0, "12:01").out.contains("TrackYourStress"))
        let snoozed = try run("reminders snooze", day: 0, "12:05")
        #expect(snoozed.status == 0 && snoozed.out.contains("12:15"), "\(snoozed.out)\(snoozed.err)")
        #expect(try run("reminders snooze", day: 0, "12:06").status != 0)  // once only
        #expect(try deliver(day: 0, "12:15").out.contains("TrackYourStress"))  // announced again
        #expect(!(try deliver(day: 0, "12:16").out.contains("TrackYourStress")))  // and only once
        try fill(day: 0, "12:20")
        _ = try deliver(day: 0, "15:01")
        _ = try deliver(day: 0, "18:01")
        // Day 2.
        _ = try deliver(day: 1, "09:01")
        _ = try deliver(day: 1, "12:01")
        _ = try deliver(day: 1, "15:01")
        try fill(day: 1, "15:45")
        _ = try deliver(day: 1, "18:01")
        // Day 3.
        _ = try deliver(day: 2, "09:01")
        try fill(day: 2, "09:20")
        for time in ["12:01", "15:01", "18:01"] { _ = try deliver(day: 2, time) }
        // Begun after the 18:01 prompt's window and its late allowance: the participant's own entry;
        // that prompt stays missed (before, any sheet within a day made it late).
        try fill(day: 2, "19:30")

        let report = try run("adherence --json", day: 2, "20:00")
        #expect(report.status == 0, "\(report.err)")
        let client = try JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [String: Any]
        let overall = Self.counts(client?["overall"])
        #expect(overall == ["delivered": 6, "answeredInTime": 2, "late": 1, "missed": 3, "open": 0, "withdrawn": 6], "\(report.out)")
        let days = (client?["days"] as? [[String: Any]] ?? []).suffix(3).map { Self.counts($0["counts"]) }
        #expect(days.map { $0["delivered"] } == [2, 3, 1])
        #expect(days.map { $0["answeredInTime"] } == [1, 0, 1])
        let table = try run("adherence", day: 2, "20:00")
        #expect(table.out.contains("█") && table.out.contains("░"), "\(table.out)")

        let synced = try run("sync", day: 2, "20:00")
        #expect(synced.status == 0, "\(synced.err)")
        let coordinator = try server.coordinator(["adherence", "--study", "stress", "--format", "json", "--below", "0.5"])
        #expect(coordinator.status == 0, "\(coordinator.err)")
        let lines = try JSONSerialization.jsonObject(with: Data(coordinator.out.utf8)) as? [[String: Any]] ?? []
        #expect(lines.count == 1, "\(coordinator.out)")
        #expect(lines.first?["questionnaire"] as? String == "stress-daily")
        #expect(Self.counts(lines.first?["counts"]) == overall, "\(coordinator.out)")
        #expect((lines.first?["counts"] as? [String: Any])?["rate"] as? Double == (overall["answeredInTime"].map { Double($0) / 6 }.map { ($0 * 10_000).rounded() / 10_000 }))
        #expect(lines.first?["flags"] as? [String] == ["below"])
        // A second sync sends nothing again: the server holds each event once.
        #expect(try run("sync", day: 2, "20:01").status == 0)
        let again = try server.coordinator(["adherence", "--study", "stress", "--format", "csv"])
        // CSV records end in CRLF, from the command line as from the console: a header and one line.
        let records = again.out.components(separatedBy: "\r\n")
        #expect(records.count == 3 && records.last == "" && again.out.contains(",6,2,1,3,0,6,"), "\(again.out)")
        // The streamed table's columns line up with its header, and --as-of pins the moment
        // silent days count back from (the events arrived now: silent by 2099, not today).
        let aligned = try server.coordinator(["adherence", "--study", "stress", "--silent-days", "3", "--as-of", "2099-01-01T00:00:00Z"])
        let tableLines = aligned.out.split(separator: "\n").map(String.init)
        #expect(tableLines.count == 2, "\(aligned.out)")
        if tableLines.count == 2, let rate = tableLines[0].range(of: "rate"), let flags = tableLines[0].range(of: "flags") {
            #expect(tableLines[1].distance(from: tableLines[1].startIndex, to: tableLines[1].range(of: "0.3333")?.lowerBound ?? tableLines[1].endIndex)
                    == tableLines[0].distance(from: tableLines[0].startIndex, to: rate.lowerBound), "\(aligned.out)")
            #expect(tableLines[1].hasSuffix("silent") && tableLines[1].count == tableLines[0].distance(from: tableLines[0].startIndex, to: flags.lowerBound) + "silent".count,
                    "\(aligned.out)")
        }
        let today = try server.coordinator(["adherence", "--study", "stress", "--format", "csv", "--silent-days", "3",
                                            "--as-of", ISO8601DateFormatter().string(from: Date())])
        #expect(today.status == 0 && !today.out.contains("silent"), "\(today.out)\(today.err)")
        #expect(try server.coordinator(["adherence", "--study", "stress", "--as-of", "yesterday"]).err.contains("--as-of 'yesterday' is not a time"))

        // The export's prompt columns: four sheets, three answering a prompt (one late), one the
        // participant's own.
        let exportFolder = folder.path + "/export"
        let export = try server.coordinator(["export", "--study", "stress", "--format", "json", "--out", exportFolder, "--prompts"])
        #expect(export.status == 0, "\(export.err)")
        let rows = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exportFolder + "/stress-answers.json")))
            as? [[String: Any]] ?? []
        let sheets = Dictionary(grouping: rows, by: { $0["sheetId"] as? String ?? "" })
        #expect(sheets.count == 4)
        let prompted = sheets.values.filter { $0.first?["initiatedBy"] as? String == "prompt" }
        #expect(prompted.count == 3 && prompted.allSatisfy { ($0.first?["promptId"] as? String)?.hasPrefix("tys/") == true })
        #expect(prompted.filter { $0.first?["late"] as? Bool == true }.count == 1)
        let own = sheets.values.filter { $0.first?["initiatedBy"] as? String == "participant" }
        #expect(own.count == 1 && own.first?.first?["promptId"] == nil)
        // The prompt table: a row per prompt whose outcomes are the report's counts.
        let promptTable = try String(contentsOfFile: exportFolder + "/stress-prompts.csv", encoding: .utf8)
        let promptRecords = promptTable.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0.components(separatedBy: ",") }
        let outcomeColumn = try #require(promptRecords.first?.firstIndex(of: "outcome"), "\(promptTable)")
        let tableRows = promptRecords.dropFirst()
        let outcomes = Dictionary(grouping: tableRows.map { $0[outcomeColumn] }, by: { $0 }).mapValues(\.count)
        #expect(outcomes["completed"] == 2 && outcomes["late"] == 1 && outcomes["missed"] == 3 && outcomes["withdrawn"] == 6, "\(promptTable)")
        #expect(outcomes["open"] == nil, "\(promptTable)")
    }

    @Test("a prompt event the server refuses is rejected alone; the other events of its batch arrive, once")
    func refusedEventAlone() throws {
        let server = try StudyServer()
        let folder = TemporaryDataDirectory()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let file = folder.path + "/stress-daily.json"
        try Self.questionnaire.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try server.coordinator(["study", "create", "stress", "--title", "Stress", "--access", "public", "--modules", "tys",
                                        "--running"]).status == 0)
        #expect(try server.coordinator(["questionnaire", "import", file, "--study", "stress", "--module", "tys"]).status == 0)
        let data = TemporaryDataDirectory()
        let day = ISO8601DateFormatter.string(from: Date().addingTimeInterval(86_400), timeZone: TimeZone(identifier: "UTC")!,
                                              formatOptions: [.withFullDate])
        func run(_ command: String, _ time: String, stdin: String = "") throws -> Program.Result {
            try Program.run("uniti", ["--data-dir", data.path, "--server", server.url, "-c", command], stdin: stdin,
                            environment: ["TZ": "UTC", "UNITI_CLOCK_START": "\(day)T\(time):00Z"])
        }
        #expect(try run("register", "05:00", stdin: "nele\nnele@example.org\nnele@example.org\nstress-pass-1\nstress-pass-1\n").status == 0)
        let code = try #require(try server.mailedCode(to: "nele@example.org"))
        #expect(try run("activate \(code)", "05:01").status == 0)
        #expect(try run("login nele", "05:02", stdin: "stress-pass-1\n").status == 0)
        #expect(try run("study join stress", "05:03").status == 0)
        #expect(try run("sync", "05:04").status == 0)
        // Offline from here, so the events wait in the outbox and go in one batch.
        server.stop()
        #expect(try run("tys reminders custom stress-daily 09:00 12:00", "05:05").status == 0)
        #expect(try run("reminders run --terminal --for 1", "09:01").out.contains("TrackYourStress"))

        // The device holds the events planned and delivered so far; one of them is made into one
        // the server refuses (its id no longer follows from its prompt and kind).
        let database = data.path + "/uniti.sqlite"
        let queued = Int(try SQLiteShell.query(database, "SELECT COUNT(*) FROM core_outbox WHERE kind = 'promptEvent'").first ?? "") ?? 0
        #expect(queued >= 3, "planned twice and delivered once at least")
        try SQLiteShell.query(database, """
            UPDATE core_outbox SET payload = CAST(json_set(CAST(payload AS TEXT), '$.id', '00000000-0000-4000-8000-000000000000') AS BLOB)
            WHERE id = (SELECT MIN(id) FROM core_outbox WHERE kind = 'promptEvent')
            """)
        try server.start()
        #expect(try run("sync", "09:02").status == 0)
        #expect(try run("sync", "09:03").status == 0)
        // Every event the device recorded arrived but the refused one (the syncs may have planned more).
        let recorded = Int(try SQLiteShell.query(database, "SELECT COUNT(*) FROM core_prompt_events").first ?? "") ?? 0
        let stored = Int(try server.query("SELECT COUNT(*) FROM prompt_events").first ?? "") ?? -1
        #expect(recorded >= queued && stored == recorded - 1, "recorded \(recorded), stored \(stored)")
        let status = try JSONSerialization.jsonObject(with: Data(try run("sync --status --json", "09:04").out.utf8)) as? [String: Any]
        #expect((status?["rejected"] as? [Any])?.count == 1, "\(String(describing: status))")
        #expect(status?["pending"] as? Int == 0)
    }
}
