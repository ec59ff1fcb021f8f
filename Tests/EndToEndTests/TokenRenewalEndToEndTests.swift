import Foundation
import Testing
import UNITITesting

/// A login that lasts, with the real programs: a real `uniti-server` whose access tokens live
/// seconds, and real `uniti` processes on one data directory that renew them as they go.
///
/// `reminders run` talks to no server (it plans and delivers reminders from the device's own
/// rules), so the two programs that share the data directory and renew here are two shells,
/// each with its own background syncs: what a person has with the shell in two terminals.
@Suite("Token renewal with the real programs", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct TokenRenewalEndToEndTests {
    static let answers = SyncEndToEndTests.answers

    /// The stored session's refresh token, read from the client's database as anyone could.
    static func refreshToken(_ setup: SyncEndToEndTests.Setup) throws -> String? {
        let text = try SQLiteShell.query(setup.data.path + "/uniti.sqlite",
                                         "SELECT json_extract(value, '$.refreshToken') FROM core_settings WHERE key = 'session'")
        return text.first
    }

    @Test("two shells on one data directory keep syncing across four access-token lifetimes; neither logs the other out",
          .timeLimit(.minutes(15)))
    func twoShellsKeepSyncing() throws {
        let setup = try SyncEndToEndTests.Setup(serveArguments: ["--access-token-lifetime", "3", "--refresh-token-lifetime", "60"])
        let loggedIn = try #require(try Self.refreshToken(setup))
        let shells = try (0..<2).map { _ in try Program.start("uniti", setup.base) }
        let rounds = 8, spacing: TimeInterval = 1.5
        let start = Date()
        for round in 1...rounds {
            for shell in shells { shell.write("tyt fill\n" + Self.answers + "sync\n") }
            // Both sheets of the round reach the server before the next round starts.
            let deadline = Date().addingTimeInterval(30)
            while try setup.sheetsOnServer() < 2 * round, Date() < deadline { usleep(50_000) }
            #expect(try setup.sheetsOnServer() == 2 * round, "round \(round): \(shells.map { String($0.out.suffix(300)) })")
            let next = start.addingTimeInterval(Double(round) * spacing)
            if next > Date() { Thread.sleep(until: next) }
        }
        let results = shells.map { $0.finish() }
        for (index, result) in results.enumerated() {
            #expect(result.status == 0, "shell \(index): \(result.err)")
            #expect(!result.err.contains("log in again") && !result.out.contains("log in again"), "shell \(index): \(result.err)")
        }
        #expect(Date().timeIntervalSince(start) >= 4 * 3, "the run was shorter than four token lifetimes")
        #expect(try setup.sheetsOnServer() == 2 * rounds)
        #expect(try setup.pending() == 0)
        // One login, one session, renewed all along and still open.
        #expect(try setup.server.query("SELECT COUNT(*) FROM sessions") == ["1"])
        let renewedFor = try setup.server.query("SELECT rotated_at - created_at FROM sessions WHERE revoked_at IS NULL")
        #expect((renewedFor.first.flatMap(Double.init) ?? 0) >= 6, "renewed for \(renewedFor) s only")
        #expect(try Self.refreshToken(setup) != loggedIn)
        let after = try setup.run("profile")
        #expect(after.status == 0 && after.out.contains("eve"), "\(after.err)")
    }

    @Test("a renewal the server refuses (password changed elsewhere) asks to log in again and keeps the outbox",
          .timeLimit(.minutes(15)))
    func refusedRenewalKeepsTheOutbox() throws {
        let setup = try SyncEndToEndTests.Setup()
        setup.server.stop()
        for _ in 0..<2 { #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0) }
        try setup.server.start()

        // On another device: log in and change the password, which ends every other session.
        let phone = TemporaryDataDirectory()
        let other = ["--data-dir", phone.path, "--server", setup.server.url, "-c"]
        #expect(try Program.run("uniti", other + ["login eve"], stdin: "password-eve\n").status == 0)
        let change = try Program.run("uniti", other + ["password change"], stdin: "password-eve\npassword-new\npassword-new\n")
        #expect(change.status == 0, "\(change.err)")

        let sync = try setup.run("sync")
        #expect(sync.status == 1)
        #expect(sync.err.contains("please log in again"), "\(sync.err)")
        #expect(try Self.refreshToken(setup) == nil)
        #expect(try setup.pending() == 2)
        #expect(try setup.sheetsOnServer() == 0)

        let login = try setup.run("login eve", stdin: "password-new\n")
        #expect(login.status == 0, "\(login.err)")
        #expect(try setup.sheetsOnServer() == 2)
        #expect(try setup.pending() == 0)
    }

    @Test("offline, a token that ended keeps the login and the outbox; the next sync renews it and sends everything",
          .timeLimit(.minutes(15)))
    func offlineRenewalKeepsTheLogin() throws {
        let setup = try SyncEndToEndTests.Setup()
        let before = try #require(try Self.refreshToken(setup))
        setup.server.stop()
        #expect(try setup.run("tyt fill", stdin: Self.answers).status == 0)
        // Two hours later by the client's clock: its token is due for renewal, the server is away.
        let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(7200))
        let clock = ["UNITI_CLOCK_START": later]
        let offline = try Program.run("uniti", setup.base + ["-c", "sync"], environment: clock)
        #expect(offline.status == 1)
        #expect(offline.err.contains("cannot be reached"), "\(offline.err)")
        #expect(try Self.refreshToken(setup) == before)
        #expect(try setup.pending() == 1)

        try setup.server.start()
        let online = try Program.run("uniti", setup.base + ["-c", "sync"], environment: clock)
        #expect(online.status == 0, "\(online.err)")
        #expect(try Self.refreshToken(setup) != before)
        #expect(try setup.sheetsOnServer() == 1)
        #expect(try setup.pending() == 0)
    }
}
