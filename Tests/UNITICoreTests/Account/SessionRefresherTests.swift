import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITICore

/// The client's session renewal against a real `uniti-server` on loopback (real HTTP through
/// libcurl), with the program in this process on a fixed clock: the test decides when the
/// client thinks a token is about to end, the server decides when it has.
@Suite("Session renewal against a real server", .serialized, .timeLimit(.minutes(10)))
struct SessionRefresherTests {
    /// A data directory with its own account, logged in through the shell's commands.
    static func participant(_ name: String, on server: StudyServer, directory: DataDirectory? = nil) throws -> ModuleHarness {
        let harness = try ModuleHarness([], directory: directory)
        try harness.services.sessions.setServer(server.url)
        guard directory == nil else { return harness }
        let password = "password-\(name)"
        harness.input.append([name, "\(name)@example.org", "\(name)@example.org", password, password])
        try #require(harness.runCapturing("register").succeeded, "\(harness.output.err)")
        let code = try #require(try server.mailedCode(to: "\(name)@example.org"))
        try #require(harness.runCapturing("activate \(code)").succeeded, "\(harness.output.err)")
        harness.input.append([password])
        try #require(harness.runCapturing("login \(name)").succeeded, "\(harness.output.err)")
        return harness
    }

    static func session(_ harness: ModuleHarness) throws -> Session? {
        try harness.services.sessions.current()
    }

    /// Whether the server takes `token` for the profile (asked directly, with nothing renewed).
    static func accepts(_ token: String, on harness: ModuleHarness) throws -> Bool {
        do {
            let _: Profile = try harness.services.apiClient().withToken(token).send("GET", "account/profile")
            return true
        } catch APIError.unauthorized {
            return false
        }
    }

    @Test("a token in its last minute is renewed before the request, once; the old pair stops working")
    func renewsBeforeTheEnd() throws {
        let server = try StudyServer()
        let eve = try Self.participant("eve", on: server)
        let first = try #require(try Self.session(eve))
        #expect(first.accessLifetime == 3600)
        eve.clock.advance(by: 3539)
        #expect(eve.runCapturing("profile").succeeded)
        #expect(try Self.session(eve) == first, "not renewed with more than a minute left")

        eve.clock.advance(by: 1)
        let profile = eve.runCapturing("profile")
        #expect(profile.succeeded, "\(profile.err)")
        let renewed = try #require(try Self.session(eve))
        #expect(renewed.refreshToken != first.refreshToken && renewed.accessToken != first.accessToken)
        #expect(renewed.obtainedAt == eve.clock.now && renewed.username == "eve")
        #expect(try !Self.accepts(first.accessToken, on: eve), "the old access token still works")
        #expect(try Self.accepts(renewed.accessToken, on: eve))
        #expect(eve.runCapturing("profile").succeeded)
        #expect(try Self.session(eve) == renewed, "renewed twice")
    }

    @Test("a token the server already ended (401) is renewed once and the request sent again")
    func renewsAfterRefusal() throws {
        let server = try StudyServer(serveArguments: ["--access-token-lifetime", "1", "--refresh-token-lifetime", "600"])
        let eve = try Self.participant("eve", on: server)
        let first = try #require(try Self.session(eve))
        // The client's clock stands still: only the server knows the token has ended.
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try !Self.accepts(first.accessToken, on: eve))
        let profile = eve.runCapturing("profile")
        #expect(profile.succeeded, "\(profile.err)")
        #expect(profile.out.contains("eve"))
        #expect(try Self.session(eve)?.refreshToken != first.refreshToken)
    }

    @Test("a program that waited while another renewed takes the stored pair and spends no refresh token")
    func takesOverAnotherProgramsRenewal() throws {
        let server = try StudyServer()
        let shell = try Self.participant("eve", on: server)
        let script = try Self.participant("eve", on: server, directory: shell.directory)
        let before = try #require(try Self.session(script))
        shell.clock.advance(by: 3590)
        #expect(shell.runCapturing("profile").succeeded)
        let renewed = try #require(try Self.session(shell))
        #expect(renewed.refreshToken != before.refreshToken)

        // The script sent the old token, got 401, and now asks for one under the lock.
        let client = try script.services.apiClient()
        let token = try #require(client.session).tokenAfterRefusal(of: before.accessToken)
        #expect(token == renewed.accessToken)
        #expect(try Self.session(script) == renewed, "the script renewed again")
        #expect(try Self.accepts(renewed.accessToken, on: script))
        // A request with the old token goes through the same way, renewing nothing.
        #expect(script.runCapturing("profile").succeeded)
        #expect(try Self.session(script) == renewed)
    }

    @Test("a renewal whose answer was lost is repeated with the same refresh token within the grace")
    func lostAnswerIsRepeated() throws {
        let server = try StudyServer()
        let eve = try Self.participant("eve", on: server)
        let stored = try #require(try Self.session(eve))
        // The server rotates; the answer never reaches the program (killed, network gone).
        let _: SessionTokens = try eve.services.apiClient().withToken(nil)
            .send("POST", "account/refresh", body: RefreshRequest(refreshToken: stored.refreshToken))
        #expect(try !Self.accepts(stored.accessToken, on: eve))

        let profile = eve.runCapturing("profile")
        #expect(profile.succeeded, "\(profile.err)")
        let renewed = try #require(try Self.session(eve))
        #expect(renewed.refreshToken != stored.refreshToken)
        #expect(try Self.accepts(renewed.accessToken, on: eve))
        #expect(try server.query("SELECT COUNT(*) FROM sessions WHERE revoked_at IS NULL") == ["1"])
    }

    @Test("without network a renewal keeps the session; a renewal the server refuses forgets it and asks to log in again")
    func failedRenewals() throws {
        let server = try StudyServer()
        let eve = try Self.participant("eve", on: server)
        let stored = try #require(try Self.session(eve))
        eve.clock.advance(by: 7200)
        server.stop()
        let offline = eve.runCapturing("profile")
        #expect(!offline.succeeded)
        #expect(offline.err.contains("cannot be reached"), "\(offline.err)")
        #expect(try Self.session(eve) == stored, "the session changed without an answer")
        try server.start()
        #expect(eve.runCapturing("profile").succeeded)

        // The password is changed on another device: every other session ends.
        let phoneDirectory = DataDirectory(path: NSTemporaryDirectory() + "uniti-phone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: phoneDirectory.path) }
        let phone = try Self.participant("eve", on: server, directory: phoneDirectory)
        phone.input.append(["password-eve"])
        try #require(phone.runCapturing("login eve").succeeded, "\(phone.output.err)")
        phone.input.append(["password-eve", "password-new", "password-new"])
        try #require(phone.runCapturing("password change").succeeded, "\(phone.output.err)")

        let refused = eve.runCapturing("profile")
        #expect(!refused.succeeded)
        #expect(refused.err.contains("please log in again"), "\(refused.err)")
        #expect(try Self.session(eve) == nil)
        #expect(try Self.session(phone) != nil, "the device that changed the password stays logged in")
    }

    @Test("a refused renewal forgets only the session it renewed: a login another program stored meanwhile stays")
    func refusalKeepsANewerLogin() throws {
        let harness = try ModuleHarness([])
        let sessions = harness.services.sessions
        func session(_ refresh: String) -> Session {
            Session(username: "eve", tokens: SessionTokens(accessToken: "a-\(refresh)", refreshToken: refresh,
                                                          expiresAt: "2026-09-22T13:13:20Z", refreshExpiresAt: "2026-10-22T12:13:20Z"))
        }
        try sessions.save(session("old"))
        try sessions.save(session("newer-login"))
        #expect(try !sessions.replace(refreshToken: "old", with: nil))
        #expect(try sessions.current()?.refreshToken == "newer-login")
        #expect(try !sessions.replace(refreshToken: "old", with: session("renewed")))
        #expect(try sessions.current()?.refreshToken == "newer-login")
        #expect(try sessions.replace(refreshToken: "newer-login", with: session("renewed")))
        #expect(try sessions.current()?.refreshToken == "renewed")
    }
}
