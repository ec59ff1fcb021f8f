import Foundation
import Testing
import UNITITesting

/// Deactivation has a way back: logging in to a deactivated account offers to reactivate it,
/// with the real `uniti` and a real `uniti-server`.
@Suite("Reactivating a deactivated account with the real programs", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct ReactivationEndToEndTests {
    /// A joined participant who deactivated the account, with one sheet answered since (it waits).
    static func deactivated() throws -> SyncEndToEndTests.Setup {
        let setup = try SyncEndToEndTests.Setup()
        let deactivate = try setup.run("account deactivate", stdin: "yes\n")
        #expect(deactivate.status == 0, "\(deactivate.err)")
        #expect(deactivate.out.contains("You can reactivate it later by logging in"))
        #expect(try setup.server.query("SELECT active FROM users WHERE username = 'eve'") == ["0"])
        #expect(try setup.run("tyt fill", stdin: SyncEndToEndTests.answers).status == 0)
        return setup
    }

    @Test("a script is told in one line to say --reactivate; with it, the account is active, logged in, and what waited is sent",
          .timeLimit(.minutes(15)))
    func scriptReactivates() throws {
        let setup = try Self.deactivated()
        let plain = try setup.run("login eve", stdin: "password-eve\n")
        #expect(plain.status == 1)
        #expect(plain.err.split(separator: "\n").count == 1, "\(plain.err)")
        #expect(plain.err.contains("login --reactivate eve"), "\(plain.err)")
        #expect(try setup.server.query("SELECT active FROM users WHERE username = 'eve'") == ["0"])
        let wrong = try setup.run("login --reactivate eve", stdin: "not-her-password\n")
        #expect(wrong.status == 1)
        #expect(try setup.server.query("SELECT active FROM users WHERE username = 'eve'") == ["0"])

        let again = try setup.run("login --reactivate eve", stdin: "password-eve\n")
        #expect(again.status == 0, "\(again.err)")
        #expect(again.out.contains("Your account eve is active again."), "\(again.out)")
        #expect(again.out.contains("Logged in as eve."))
        #expect(try setup.server.query("SELECT active FROM users WHERE username = 'eve'") == ["1"])
        #expect(try setup.sheetsOnServer() == 1)
        #expect(try setup.pending() == 0)
    }

    @Test("at a terminal one yes/no question: no keeps it deactivated and logs nobody in, yes reactivates and logs in",
          .timeLimit(.minutes(15)))
    func terminalAsks() throws {
        let setup = try Self.deactivated()
        func login(answer: String) throws -> (status: Int32?, output: String) {
            let terminal = try Terminal("uniti", setup.base + ["-c", "login eve"])
            #expect(terminal.waitFor("Password:"), "\(terminal.output)")
            terminal.type("password-eve\r")
            #expect(terminal.waitFor("Reactivate it now and log in?"), "\(terminal.output)")
            terminal.type(answer + "\r")
            return (terminal.waitForExit(), terminal.output)
        }
        let no = try login(answer: "no")
        #expect(no.status == 1)
        #expect(no.output.contains("the account stays deactivated"), "\(no.output)")
        #expect(!no.output.contains("password-eve"), "the password was shown")
        #expect(try setup.server.query("SELECT active FROM users WHERE username = 'eve'") == ["0"])
        #expect(try setup.pending() == 1)

        let yes = try login(answer: "yes")
        #expect(yes.status == 0, "\(yes.output)")
        #expect(yes.output.contains("Your account eve is active again."), "\(yes.output)")
        #expect(try setup.server.query("SELECT active FROM users WHERE username = 'eve'") == ["1"])
        #expect(try setup.sheetsOnServer() == 1)
    }
}
