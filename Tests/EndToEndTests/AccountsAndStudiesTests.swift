import Foundation
import UNITITesting
import Testing

/// Accounts, studies and enabled modules with a real `uniti-server` on loopback and the real
/// `uniti` client.
@Suite("Accounts and studies against a real server", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct AccountsAndStudiesTests {
    @Test("register, activate from the mailed code, log in, join a public and a password study, modules follow, log out")
    func accountAndStudies() throws {
        let server = try StudyServer()
        let data = TemporaryDataDirectory()
        let base = ["--data-dir", data.path, "--server", server.url]

        try server.coordinator(["study", "create", "open-noise", "--title", "Open noise study", "--access", "public", "--modules", "son,tyt", "--running"])
        try server.coordinator(["study", "create", "clinic", "--title", "Clinic record", "--access", "password",
                                "--password", "letmein-42", "--modules", "tn", "--running"])

        let register = try Program.run("uniti", base + ["-c", "register"],
                                       stdin: "ada\nada@example.org\nada@example.org\ncorrect horse\ncorrect horse\n")
        #expect(register.status == 0, "\(register.err)")
        #expect(register.out.contains("Account created"))

        let code = try #require(try server.mailedCode(to: "ada@example.org"))
        let activate = try Program.run("uniti", base + ["-c", "activate \(code)"])
        #expect(activate.status == 0, "\(activate.err)")

        let wrong = try Program.run("uniti", base + ["-c", "login ada"], stdin: "wrong password\n")
        #expect(wrong.status == 1)
        #expect(wrong.err.split(separator: "\n").count == 1)

        let login = try Program.run("uniti", base + ["-c", "login ada@example.org"], stdin: "correct horse\n")
        #expect(login.status == 0, "\(login.err)")
        #expect(login.out.contains("Logged in as ada"))
        let session = try String(contentsOfFile: data.path + "/uniti.sqlite", encoding: .isoLatin1)
        #expect(!session.contains("correct horse"), "the password must never be stored")

        // Before joining anything the person still has the offline default (all modules).
        let all = try Program.run("uniti", base + ["-c", "studies --all --json"])
        #expect(all.out.contains("open-noise"))
        // Every study is listed, a password study too (Track Your Stress 7.2.3): joining asks for its password.
        #expect(all.out.contains("clinic"))

        let joinOpen = try Program.run("uniti", base + ["-c", "study join open-noise"])
        #expect(joinOpen.status == 0, "\(joinOpen.err)")
        let modulesAfterOpen = try enabledModules(base)
        #expect(modulesAfterOpen == ["son", "tyt"])

        let badPassword = try Program.run("uniti", base + ["-c", "study join clinic"], stdin: "guess\n")
        #expect(badPassword.status == 1)
        let joinClinic = try Program.run("uniti", base + ["-c", "study join clinic"], stdin: "letmein-42\n")
        #expect(joinClinic.status == 0, "\(joinClinic.err)")
        #expect(try enabledModules(base) == ["son", "tn", "tyt"])

        let disabled = try Program.run("uniti", base + ["-c", "tys about"])
        #expect(disabled.status == 1)
        #expect(disabled.err.contains("module tys is not enabled"))

        let logout = try Program.run("uniti", base + ["-c", "logout"])
        #expect(logout.status == 0)
        let status = try Program.run("uniti", base + ["-c", "config show"])
        #expect(status.out.contains("not logged in"))
    }

    @Test("another account cannot log in to a data directory that holds someone else's data")
    func dataDirectoryBelongsToOnePerson() throws {
        let server = try StudyServer()
        let data = TemporaryDataDirectory()
        let base = ["--data-dir", data.path, "--server", server.url]
        for name in ["bea", "cyd"] {
            let other = TemporaryDataDirectory()
            try Program.run("uniti", ["--data-dir", other.path, "--server", server.url, "-c", "register"],
                            stdin: "\(name)\n\(name)@example.org\n\(name)@example.org\npassword-\(name)\npassword-\(name)\n")
            let code = try #require(try server.mailedCode(to: "\(name)@example.org"))
            try Program.run("uniti", base + ["-c", "activate \(code)"])
        }
        #expect(try Program.run("uniti", base + ["-c", "login bea"], stdin: "password-bea\n").status == 0)
        try Program.run("uniti", base + ["-c", "logout"])
        let intruder = try Program.run("uniti", base + ["-c", "login cyd"], stdin: "password-cyd\n")
        #expect(intruder.status == 1)
        #expect(intruder.err.contains("belongs to bea"))
    }

    /// A registered, activated and logged-in account on a data directory of its own; returns
    /// the options every run on it takes.
    static func loggedIn(_ name: String, on server: StudyServer, data: TemporaryDataDirectory) throws -> [String] {
        let base = ["--data-dir", data.path, "--server", server.url]
        let password = "password-\(name)"
        let register = try Program.run("uniti", base + ["-c", "register"],
                                       stdin: "\(name)\n\(name)@example.org\n\(name)@example.org\n\(password)\n\(password)\n")
        #expect(register.status == 0, "\(register.err)")
        let code = try #require(try server.mailedCode(to: "\(name)@example.org"))
        #expect(try Program.run("uniti", base + ["-c", "activate \(code)"]).status == 0)
        let login = try Program.run("uniti", base + ["-c", "login \(name)"], stdin: password + "\n")
        #expect(login.status == 0, "\(login.err)")
        return base
    }

    @Test("studies --all lists every study with its access, or says in one line that there is none; joining asks for a password or sends a request; study info shows start and end",
          .timeLimit(.minutes(15)))
    func everyStudyListed() throws {
        let server = try StudyServer()
        let data = TemporaryDataDirectory()
        let base = try Self.loggedIn("ida", on: server, data: data)
        let utc = ["TZ": "UTC"]

        let none = try Program.run("uniti", base + ["-c", "studies --all"])
        #expect(none.status == 0, "\(none.err)")
        #expect(none.out == "The server lists no studies yet.\n", "\(none.out)")

        for arguments in [["open", "--access", "public", "--description", "Everyone may read this.",
                           "--starts", "2026-12-01T08:00:00Z", "--ends", "2027-06-30T18:00:00Z"],
                          ["clinic", "--access", "password", "--password", "letmein-42", "--description", "Only for our patients."],
                          ["curated", "--access", "byRequest", "--description", "Chosen by the study team."]] {
            let created = try server.coordinator(["study", "create"] + arguments + ["--title", "Study \(arguments[0])", "--modules", "tyt", "--running"])
            #expect(created.status == 0, "\(created.err)")
        }
        let all = try Program.run("uniti", base + ["-c", "studies --all"])
        #expect(all.status == 0, "\(all.err)")
        let lines = all.out.split(separator: "\n")
        #expect(lines.count == 3, "\(all.out)")
        #expect(lines.contains { $0.contains("open") && $0.contains("open to all") && $0.contains("not joined") }, "\(all.out)")
        #expect(lines.contains { $0.contains("clinic") && $0.contains("needs a password") }, "\(all.out)")
        #expect(lines.contains { $0.contains("curated") && $0.contains("by request") }, "\(all.out)")

        // What a person who has not joined may read is what the detail route shows: a password or
        // by-request study's description only to its members.
        let json = try Program.run("uniti", base + ["-c", "studies --all --json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID["clinic"]?["access"] as? String == "password")
        #expect(byID["curated"]?["access"] as? String == "byRequest")
        #expect(byID["open"]?["startsAt"] as? String == "2026-12-01T08:00:00Z", "\(json.out)")
        #expect(byID["open"]?["endsAt"] as? String == "2027-06-30T18:00:00Z")
        #expect(!json.out.contains("Only for our patients") && !json.out.contains("Chosen by the study team"), "\(json.out)")

        let info = try Program.run("uniti", base + ["-c", "study info open"], environment: utc)
        #expect(info.status == 0, "\(info.err)")
        #expect(info.out.contains("Starts") && info.out.contains("2026-12-01 08:00"), "\(info.out)")
        #expect(info.out.contains("Ends") && info.out.contains("2027-06-30 18:00"), "\(info.out)")
        let noDates = try Program.run("uniti", base + ["-c", "study info clinic"])
        #expect(noDates.out.contains("Starts") && noDates.out.contains("not set"), "\(noDates.out)")

        let joined = try Program.run("uniti", base + ["-c", "study join clinic"], stdin: "letmein-42\n")
        #expect(joined.status == 0, "\(joined.err)")
        #expect(joined.out.contains("Study password:"))
        let requested = try Program.run("uniti", base + ["-c", "study join curated"])
        #expect(requested.status == 0, "\(requested.err)")
        #expect(requested.out.contains("waits for the study team"), "\(requested.out)")
        let after = try Program.run("uniti", base + ["-c", "studies --all --json"])
        let rowsAfter = try #require(try JSONSerialization.jsonObject(with: Data(after.out.utf8)) as? [[String: Any]])
        let clinic = try #require(rowsAfter.first { $0["id"] as? String == "clinic" })
        #expect(clinic["membership"] as? String == "member")
        #expect(clinic["description"] as? String == "Only for our patients.", "a member reads it")
        let curated = try #require(rowsAfter.first { $0["id"] as? String == "curated" })
        #expect(curated["membership"] as? String == "pending")
        #expect(curated["description"] as? String == "Chosen by the study team.", "a pending request reads it, as on the detail route")
    }

    @Test("logout on a terminal asks first and says how many changes have not reached the server; n keeps the login; --yes and scripts do not ask",
          .timeLimit(.minutes(15)))
    func logoutAsksOnATerminal() throws {
        let server = try StudyServer()
        let data = TemporaryDataDirectory()
        let base = try Self.loggedIn("jan", on: server, data: data)
        server.stop()
        let fill = try Program.run("uniti", base + ["-c", "tyt fill"], stdin: SyncEndToEndTests.answers)
        #expect(fill.status == 0, "\(fill.err)")

        let terminal = try Terminal("uniti", base)
        #expect(terminal.waitFor("uniti> "))
        usleep(200_000)
        terminal.type("logout\r")
        #expect(terminal.waitFor("Changes not yet on the server: 1"), "\(terminal.output)")
        #expect(terminal.waitFor("(y/n)"))
        terminal.type("n\r")
        #expect(terminal.waitFor("You are still logged in."), "\(terminal.output)")
        #expect(terminal.waitForPrompt("uniti> ", after: "still logged in"))
        terminal.type("config show\r")
        #expect(terminal.waitFor("jan", after: terminal.output.range(of: "config show")?.upperBound), "\(terminal.output)")
        #expect(terminal.waitForPrompt("uniti> ", after: "config show"))
        terminal.type("logout\r")
        #expect(terminal.waitFor("(y/n)", after: terminal.output.range(of: "logout", options: .backwards)?.upperBound))
        terminal.type("y\r")
        #expect(terminal.waitFor("Logged out."), "\(terminal.output)")
        #expect(terminal.waitForPrompt("uniti> ", after: "Logged out."))
        terminal.type("exit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try Program.run("uniti", base + ["-c", "config show"]).out.contains("not logged in"))
        let status = try Program.run("uniti", base + ["-c", "sync --status --json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any]
        #expect(object?["pending"] as? Int == 1, "the change stays: \(status.out)")

        // --yes on a terminal, and a script: no question.
        try server.start()
        #expect(try Program.run("uniti", base + ["-c", "login jan"], stdin: "password-jan\n").status == 0)
        let again = try Terminal("uniti", base)
        #expect(again.waitFor("uniti> "))
        usleep(200_000)
        again.type("logout --yes\r")
        #expect(again.waitFor("Logged out."), "\(again.output)")
        #expect(!again.output.contains("(y/n)"))
        // The end-of-input key only once the line editor is back in raw mode: typed earlier, the
        // editor's switch to raw mode may flush it.
        #expect(again.waitForPrompt("uniti> ", after: "Logged out."))
        again.type("\u{04}")
        #expect(again.waitForExit() == 0)
        #expect(try Program.run("uniti", base + ["-c", "login jan"], stdin: "password-jan\n").status == 0)
        let script = try Program.run("uniti", base + ["-c", "logout"])
        #expect(script.status == 0, "\(script.err)")
        #expect(!script.out.contains("(y/n)") && script.out.contains("Logged out."), "\(script.out)")
    }

    private func enabledModules(_ base: [String]) throws -> [String] {
        let result = try Program.run("uniti", base + ["-c", "modules --json"])
        struct Listing: Decodable { struct Row: Decodable { let id: String; let enabled: Bool }; let modules: [Row] }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(result.out.utf8))
        return listing.modules.filter(\.enabled).map(\.id).sorted()
    }
}
