import Foundation
import UNITITesting
import Testing

/// Offline-first sync with a real `uniti-server` on loopback and the real `uniti` client:
/// nothing entered offline is lost, and nothing arrives twice, whatever happens to the network
/// or the client process.
@Suite("Sync against a real server", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct SyncEndToEndTests {
    static let answers = "yes\n35\n60\n4\n2\n50\n80\n25\n"

    /// A server with a public study that owns the tyt questionnaire, and a client logged in and
    /// (unless `join` is false) joined to it.
    struct Setup {
        let server: StudyServer
        let data = TemporaryDataDirectory()
        var base: [String] { ["--data-dir", data.path, "--server", server.url] }

        init(join: Bool = true, access: String = "public", serveArguments: [String] = []) throws {
            server = try StudyServer(serveArguments: serveArguments)
            try server.createStudy("ema", modules: "tyt", questionnaires: ["tyt-momentary"], access: access)
            let register = try Program.run("uniti", base + ["-c", "register"],
                                           stdin: "eve\neve@example.org\neve@example.org\npassword-eve\npassword-eve\n")
            #expect(register.status == 0, "\(register.err)")
            let code = try #require(try server.mailedCode(to: "eve@example.org"))
            try Program.run("uniti", base + ["-c", "activate \(code)"])
            #expect(try Program.run("uniti", base + ["-c", "login eve"], stdin: "password-eve\n").status == 0)
            guard join else { return }
            let joined = try Program.run("uniti", base + ["-c", "study join ema"])
            #expect(joined.status == 0, "\(joined.err)")
        }

        func run(_ command: String, stdin: String = "", server url: String? = nil) throws -> Program.Result {
            try Program.run("uniti", ["--data-dir", data.path, "--server", url ?? server.url, "-c", command], stdin: stdin)
        }

        /// Sheets the server holds (read from its database, as a coordinator could).
        func sheetsOnServer() throws -> Int {
            let parts = try server.query("SELECT COUNT(*), COUNT(DISTINCT client_id) FROM answer_sheets").first?
                .split(separator: "|").compactMap { Int($0) } ?? []
            #expect(parts.count == 2 && parts[0] == parts[1], "a sheet was stored twice: \(parts)")
            return parts.first ?? -1
        }

        func pending() throws -> Int {
            try status()["pending"] as? Int ?? -1
        }

        /// `sync --status --json` as an object.
        func status() throws -> [String: Any] {
            let status = try run("sync --status --json")
            return try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any] ?? [:]
        }

        /// The reasons of the entries held in `state` ("waiting" or "rejected").
        func held(_ state: String) throws -> [String] {
            (try status()[state] as? [[String: Any]] ?? []).map { $0["reason"] as? String ?? "" }
        }

        /// Runs SQL on the client's database (to shape queued entries the way a test needs them).
        func sqlite(_ sql: String) throws {
            try SQLiteShell.query(data.path + "/uniti.sqlite", sql)
        }
    }

    @Test("a sheet answered before joining the study waits (not rejected) and is delivered exactly once after the join")
    func waitsForStudyJoin() throws {
        let setup = try Setup(join: false)
        setup.server.stop()
        let fill = try setup.run("tyt fill", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        try setup.server.start()

        let early = try setup.run("sync")
        #expect(early.status == 0, "\(early.err)")
        #expect(early.out.contains("1 answer sheet waits until you join"), "\(early.out)")
        #expect(try setup.sheetsOnServer() == 0)
        #expect(try setup.pending() == 0)
        #expect(try setup.held("rejected").isEmpty)
        let waiting = try setup.held("waiting")
        #expect(waiting.count == 1)
        #expect(waiting.first?.contains("waits until the study's questionnaire is available to you") == true, "\(waiting)")
        let status = try setup.run("sync --status")
        #expect(status.out.contains("1 waiting, tyt answerSheet (tyt-momentary): waits until the study's questionnaire"), "\(status.out)")

        // A background sync (after another answer) leaves it waiting instead of retrying it.
        #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
        #expect(try setup.held("waiting").count == 2)
        #expect(try setup.sheetsOnServer() == 0)

        let join = try setup.run("study join ema")
        #expect(join.status == 0, "\(join.err)")
        #expect(try setup.sheetsOnServer() == 2)
        #expect(try setup.held("waiting").isEmpty)
        #expect(try setup.pending() == 0)
        #expect(try setup.run("sync").status == 0)
        #expect(try setup.sheetsOnServer() == 2)
    }

    @Test("a waiting sheet is sent by the next background sync that learns the join request was approved")
    func waitsForApproval() throws {
        let setup = try Setup(join: false, access: "byRequest")
        setup.server.stop()
        #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
        try setup.server.start()
        let join = try setup.run("study join ema")
        #expect(join.status == 0, "\(join.err)")
        #expect(try setup.held("waiting").count == 1)
        #expect(try setup.sheetsOnServer() == 0)

        let approve = try setup.server.coordinator(["join-requests", "approve", "ema", "eve"])
        #expect(approve.status == 0, "\(approve.err)")
        // No explicit sync: the background sync after the next answer pulls the changed study
        // list, which wakes the waiting sheet.
        #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
        #expect(try setup.sheetsOnServer() == 2)
        #expect(try setup.held("waiting").isEmpty)
        #expect(try setup.pending() == 0)
    }

    @Test("a sheet the server finds invalid is rejected with the item named; the valid ones of the batch arrive")
    func invalidSheetRejected() throws {
        let setup = try Setup()
        setup.server.stop()
        for _ in 0..<3 {
            #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
        }
        // One queued sheet claims a loudness the questionnaire does not allow (0 to 100).
        try setup.sqlite("""
            UPDATE core_outbox SET payload = CAST(json_set(CAST(payload AS TEXT), '$.answers.loudness.value', 140) AS BLOB)
            WHERE id = (SELECT MIN(id) FROM core_outbox WHERE kind = 'answerSheet')
            """)
        try setup.server.start()
        let sync = try setup.run("sync")
        #expect(sync.status == 0, "\(sync.err)")
        #expect(sync.out.contains("2 answer sheets") && sync.out.contains("1 rejected"), "\(sync.out)")
        #expect(try setup.sheetsOnServer() == 2)
        let rejected = try setup.held("rejected")
        #expect(rejected.count == 1)
        #expect(rejected.first?.contains("'loudness'") == true, "\(rejected)")
        #expect(try setup.held("waiting").isEmpty)
        #expect(try setup.pending() == 0)
        // Rejected stays rejected: another sync sends nothing again.
        #expect(try setup.run("sync").status == 0)
        #expect(try setup.sheetsOnServer() == 2)
        #expect(try setup.held("rejected").count == 1)
    }

    @Test("answers given while the server is down are kept and delivered exactly once when it is back")
    func offlineThenDeliveredOnce() throws {
        let setup = try Setup()
        setup.server.stop()
        for _ in 0..<3 {
            let fill = try setup.run("tyt fill", stdin: Self.answers)
            #expect(fill.status == 0, "\(fill.err)")
        }
        let offline = try setup.run("sync")
        #expect(offline.status == 1)
        #expect(offline.err.contains("cannot be reached"))
        #expect(try setup.pending() == 3)

        try setup.server.start()
        let online = try setup.run("sync")
        #expect(online.status == 0, "\(online.err)")
        #expect(online.out.contains("3 answer sheets"))
        #expect(try setup.pending() == 0)
        #expect(try setup.sheetsOnServer() == 3)
        #expect(try setup.run("sync").status == 0)
        #expect(try setup.sheetsOnServer() == 3)
    }

    @Test("an answer given while the server is down is sent by the shell waiting at its prompt once the server is back, without another command; the half-typed line stays",
          .timeLimit(.minutes(15)))
    func shellAtPromptSendsWhenServerReturns() throws {
        let setup = try Setup()
        let terminal = try Terminal("uniti", setup.base)
        #expect(terminal.waitFor("uniti> "))
        usleep(200_000)  // keys typed before the editor's raw mode may be flushed
        terminal.type("modu")
        setup.server.stop()
        // The answer comes from a script on the same data directory: its own sync fails.
        let fill = try setup.run("tyt fill", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        #expect(try setup.pending() == 1)
        let offline = try setup.status()
        let times = ISO8601DateFormatter()
        let lastTry = try #require((offline["lastAttempt"] as? String).flatMap(times.date(from:)))
        let nextTry = try #require((offline["nextAttempt"] as? String).flatMap(times.date(from:)))
        #expect(offline["lastError"] as? String != nil)
        #expect(nextTry.timeIntervalSince(lastTry) >= 15 && nextTry.timeIntervalSince(lastTry) <= 30, "\(offline)")

        try setup.server.start()
        // No command typed: the shell's next try (within 30 s of the failed one) delivers it.
        let deadline = Date().addingTimeInterval(90)
        while try setup.sheetsOnServer() == 0, Date() < deadline { usleep(200_000) }
        #expect(try setup.sheetsOnServer() == 1)
        #expect(try setup.pending() == 0)
        let online = try setup.status()
        #expect(online["lastSuccess"] as? String == online["lastAttempt"] as? String, "\(online)")
        #expect(online["nextAttempt"] == nil || online["nextAttempt"] is NSNull, "nothing waits: no next try to show")

        // Nothing was written over the prompt, and the line typed before is still there.
        let typed = try #require(terminal.output.range(of: "modu")?.upperBound)
        #expect(!terminal.output[typed...].contains("error"), "\(terminal.output)")
        terminal.type("les\r")
        #expect(terminal.waitFor("TrackYourTinnitus", after: typed))
        #expect(terminal.waitForPrompt("uniti> ", after: "TrackYourTinnitus"))
        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("a reminders daemon left running sends an answer given while the server was down once the server is back, without another command",
          .timeLimit(.minutes(15)))
    func reminderDaemonSendsWhenServerReturns() throws {
        let setup = try Setup()
        setup.server.stop()
        let fill = try setup.run("tyt fill", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        #expect(try setup.pending() == 1)
        let daemon = try Program.start("uniti", setup.base + ["-c", "reminders run --for 90 --terminal"])
        try setup.server.start()
        // The failed try of the fill put the next one off by at most 30 s; the daemon makes it.
        let deadline = Date().addingTimeInterval(80)
        while try setup.sheetsOnServer() == 0, Date() < deadline { usleep(200_000) }
        #expect(try setup.sheetsOnServer() == 1)
        #expect(try setup.pending() == 0)
        daemon.kill9()
    }

    @Test("a server answering 500 keeps the answer queued; it is delivered later")
    func serverErrorIsRetried() throws {
        let setup = try Setup()
        let broken = try BrokenServer()
        setup.server.stop()  // so that the sync after the fill cannot deliver it
        #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
        try setup.server.start()
        let failed = try setup.run("sync", server: broken.url)
        #expect(failed.status == 1)
        #expect(failed.err.contains("500"))
        #expect(try setup.pending() == 1)
        let status = try setup.run("sync --status")
        #expect(status.out.contains("500"))
        #expect(try setup.run("sync").status == 0)
        #expect(try setup.sheetsOnServer() == 1)
        #expect(try setup.pending() == 0)
    }

    @Test("killing the client in the middle of a sync loses and duplicates nothing")
    func killedMidSync() throws {
        let setup = try Setup()
        setup.server.stop()
        #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
        // Many more queued sheets, copies of the real one with fresh ids, so that the sync
        // takes several batches.
        let total = 1200
        try cloneQueuedSheet(in: setup, copies: total - 1)
        #expect(try setup.pending() == total)
        try setup.server.start()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Program.path("uniti"))
        process.arguments = setup.base + ["-c", "sync"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while try setup.sheetsOnServer() == 0, process.isRunning, Date() < deadline { usleep(5_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let delivered = try setup.sheetsOnServer()
        #expect(delivered > 0)

        let again = try setup.run("sync")
        #expect(again.status == 0, "\(again.err)")
        #expect(try setup.sheetsOnServer() == total)
        #expect(try setup.pending() == 0)
    }

    /// Copies the one queued sheet `copies` times with new ids, straight into the outbox table.
    private func cloneQueuedSheet(in setup: Setup, copies: Int) throws {
        let sql = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(copies))
            INSERT INTO core_outbox (clientID, kind, moduleID, payload, createdAt, attempts, nextAttemptAt, state)
            SELECT 'sheet:' || u, kind, moduleID,
                   CAST(replace(CAST(payload AS TEXT), json_extract(CAST(payload AS TEXT), '$.id'), u) AS BLOB),
                   createdAt, 0, nextAttemptAt, 'pending'
            FROM (SELECT upper(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12)) AS u
                  FROM (SELECT lower(hex(randomblob(16))) AS h FROM n)),
                 (SELECT * FROM core_outbox WHERE kind = 'answerSheet' LIMIT 1)
            """
        try setup.sqlite(sql)
    }
}

/// A server on loopback that answers every request with 500, for retry tests.
final class BrokenServer {
    let process = Process()
    let url: String

    init() throws {
        let script = """
            import http.server, sys
            class H(http.server.BaseHTTPRequestHandler):
                def answer(self):
                    body = b'{"error": {"code": "internal", "message": "the server broke"}}'
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = answer
                def log_message(self, *args): pass
            server = http.server.HTTPServer(("127.0.0.1", 0), H)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let port = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        url = "http://127.0.0.1:\(port)"
    }

    deinit {
        // SIGKILL: a test process may ignore SIGTERM (service-lifecycle sets SIG_IGN in
        // in-process server tests), and children inherit that.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
