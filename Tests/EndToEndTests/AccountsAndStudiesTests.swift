import Foundation
import UNITITesting
import Testing

/// Accounts, studies and enabled modules with a real `uniti-server` on loopback and the real
/// `uniti` client.
@Suite("Accounts and studies against a real server", .enabled(if: Builds.isIntegrated), .serialized)
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
        // A password study is listed only to those who take part; its id comes from the study team.
        #expect(!all.out.contains("clinic"))

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

    private func enabledModules(_ base: [String]) throws -> [String] {
        let result = try Program.run("uniti", base + ["-c", "modules --json"])
        struct Listing: Decodable { struct Row: Decodable { let id: String; let enabled: Bool }; let modules: [Row] }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(result.out.utf8))
        return listing.modules.filter(\.enabled).map(\.id).sorted()
    }
}
