import Foundation
import UNITITesting
import Testing

/// The standalone `track-your-tinnitus` program on its own against a real `uniti-server` on
/// loopback (thesis FR1, FR7, FR10): it registers, logs in, stays logged in, fills and syncs
/// without the host program.
@Suite("Track Your Tinnitus standalone against a real server", .enabled(if: !Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct StandaloneTinnitusServerTests {
    static let program = "track-your-tinnitus"

    static func run(_ data: TemporaryDataDirectory, _ server: StudyServer, _ command: String, stdin: String = "") throws -> Program.Result {
        try Program.run(program, ["--data-dir", data.path, "--server", server.url, "-c", command], stdin: stdin)
    }

    @Test("registers (mistyped and taken details refused in one line), logs in by name, stays logged in, fills, and the sheet reaches the server once")
    func registerLoginFill() throws {
        let server = try StudyServer()
        try server.createStudy("tyt-only", modules: "tyt", questionnaires: ["tyt-momentary"])

        let data = TemporaryDataDirectory()
        let mistyped = try Self.run(data, server, "register", stdin: "lou\nlou@example.org\nlu@example.org\n")
        #expect(mistyped.status == 1)
        #expect(mistyped.err.contains("the two e-mail addresses differ"))
        let shortPassword = try Self.run(data, server, "register", stdin: "lou\nlou@example.org\nlou@example.org\nshort\nshort\n")
        #expect(shortPassword.status == 1)
        #expect(shortPassword.err.split(separator: "\n").count == 1)

        let register = try Self.run(data, server, "register", stdin: "lou\nlou@example.org\nlou@example.org\npassword-lou\npassword-lou\n")
        #expect(register.status == 0, "\(register.err)")
        let taken = try Self.run(TemporaryDataDirectory(), server, "register",
                                 stdin: "lou\nother@example.org\nother@example.org\npassword-x1\npassword-x1\n")
        #expect(taken.status == 1)
        #expect(taken.err.contains("this username is taken"), "\(taken.err)")

        let code = try #require(try server.mailedCode(to: "lou@example.org"))
        #expect(try Self.run(data, server, "activate \(code)").status == 0)
        let login = try Self.run(data, server, "login lou", stdin: "password-lou\n")
        #expect(login.status == 0, "\(login.err)")
        // A later start is still logged in (the token is kept, never the password).
        let later = try Self.run(data, server, "config show")
        #expect(later.out.contains("lou"), "\(later.out)")
        #expect(!later.out.contains("not logged in"))
        #expect(try Self.run(data, server, "study join tyt-only").status == 0)

        let fill = try Self.run(data, server, "fill", stdin: "yes\n35\n60\n4\n2\n50\n80\n25\n")
        #expect(fill.status == 0, "\(fill.err)")
        let sync = try Self.run(data, server, "sync")
        #expect(sync.status == 0, "\(sync.err)")
        #expect(try Self.run(data, server, "sync").status == 0)
        #expect(try server.sheets(of: "tyt-momentary") == 1)

        let results = try Self.run(data, server, "results --json")
        let object = try JSONSerialization.jsonObject(with: Data(results.out.utf8)) as? [String: Any]
        #expect((object?["results"] as? [Any])?.count == 1)
    }

    @Test("stays logged in across access-token lifetimes and gets a deactivated account back, through the host's own core code",
          .timeLimit(.minutes(15)))
    func renewalAndReactivation() throws {
        let server = try StudyServer(serveArguments: ["--access-token-lifetime", "2", "--refresh-token-lifetime", "60"])
        try server.createStudy("tyt-only", modules: "tyt", questionnaires: ["tyt-momentary"])
        let data = TemporaryDataDirectory()
        #expect(try Self.run(data, server, "register", stdin: "ida\nida@example.org\nida@example.org\npassword-ida\npassword-ida\n").status == 0)
        let code = try #require(try server.mailedCode(to: "ida@example.org"))
        #expect(try Self.run(data, server, "activate \(code)").status == 0)
        #expect(try Self.run(data, server, "login ida", stdin: "password-ida\n").status == 0)
        #expect(try Self.run(data, server, "study join tyt-only").status == 0)
        for round in 1...3 {
            Thread.sleep(forTimeInterval: 2.5)  // longer than an access token lives
            #expect(try Self.run(data, server, "fill", stdin: "yes\n35\n60\n4\n2\n50\n80\n25\n").status == 0)
            let sync = try Self.run(data, server, "sync")
            #expect(sync.status == 0, "round \(round): \(sync.err)")
            #expect(try server.sheets(of: "tyt-momentary") == round)
        }

        #expect(try Self.run(data, server, "account deactivate", stdin: "yes\n").status == 0)
        let plain = try Self.run(data, server, "login ida", stdin: "password-ida\n")
        #expect(plain.status == 1)
        #expect(plain.err.contains("login --reactivate ida"), "\(plain.err)")
        let reactivated = try Self.run(data, server, "login --reactivate ida", stdin: "password-ida\n")
        #expect(reactivated.status == 0, "\(reactivated.err)")
        #expect(reactivated.out.contains("Your account ida is active again."))
    }

    @Test("forgot password: a reset code is mailed, the new password works and the old one no longer does")
    func forgotPassword() throws {
        let server = try StudyServer()
        let data = TemporaryDataDirectory()
        #expect(try Self.run(data, server, "register", stdin: "max\nmax@example.org\nmax@example.org\nold-password\nold-password\n").status == 0)
        let activation = try #require(try server.mailedCode(to: "max@example.org"))
        #expect(try Self.run(data, server, "activate \(activation)").status == 0)

        let request = try Self.run(data, server, "password reset", stdin: "max@example.org\n")
        #expect(request.status == 0, "\(request.err)")
        let code = try #require(try server.mailedCode(to: "max@example.org", otherThan: activation))
        let reset = try Self.run(data, server, "password reset --token \(code)", stdin: "new-password\nnew-password\n")
        #expect(reset.status == 0, "\(reset.err)")
        #expect(try Self.run(data, server, "login max@example.org", stdin: "old-password\n").status == 1)
        #expect(try Self.run(data, server, "login max@example.org", stdin: "new-password\n").status == 0)
    }

    @Test("on a terminal the program starts with the login screen; without an account it goes on offline and names the open baseline")
    func startScreen() throws {
        let data = TemporaryDataDirectory()
        let terminal = try Terminal(Self.program, ["--data-dir", data.path])
        #expect(terminal.waitFor("continue as a guest"))
        terminal.type("4\r")
        #expect(terminal.waitFor("3 baseline questionnaires are still open"))
        #expect(terminal.waitForPrompt("track-your-tinnitus>", after: "still open"))
        terminal.type("exit\r")
        #expect(terminal.waitForExit() == 0)
    }
}
