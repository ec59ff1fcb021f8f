import Foundation
import Testing
import UNITITesting

/// What the interactive shell keeps in its history (issue 29, point 1; TinnitusNavigator NFR1:
/// the device keeps no e-mail address): the real `uniti` on a pseudo-terminal against a real
/// `uniti-server`, every command that takes an address or a password, and after each one a
/// search of every byte in the data directory.
@Suite("Interactive shell: no e-mail address or password in the data directory", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct HistoryPrivacyTests {
    static let address = "maria.keller@example.org"
    static let password = "Quiet-River-81"

    /// Every byte the program keeps in its data directory (database, WAL, history).
    static func storedBytes(_ data: TemporaryDataDirectory) -> Data {
        var all = Data()
        let enumerator = FileManager.default.enumerator(atPath: data.path)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = data.path + "/" + name
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                all.append(FileManager.default.contents(atPath: path) ?? Data())
            }
        }
        return all
    }

    static func holds(_ bytes: Data, _ text: String) -> Bool {
        bytes.range(of: Data(text.utf8)) != nil
    }

    @Test("register, login with the address, password reset, profile: neither the address nor the password is kept anywhere; an old history loses its addresses",
          .timeLimit(.minutes(15)))
    func nothingKept() throws {
        let server = try StudyServer()
        let data = TemporaryDataDirectory()
        // A history from an earlier version, with a line that holds an address (libedit's file
        // format: spaces written as \040).
        try FileManager.default.createDirectory(atPath: data.path, withIntermediateDirectories: true)
        try "_HiStOrY_V2_\nlogin\\040old.address@example.org\nmodules\n"
            .write(toFile: data.path + "/history", atomically: true, encoding: .utf8)

        let terminal = try Terminal("uniti", ["--data-dir", data.path, "--server", server.url])
        #expect(terminal.waitFor("uniti> "))
        let history = data.path + "/history"
        let old = try String(contentsOfFile: history, encoding: .utf8)
        #expect(!old.contains("old.address@example.org") && old.contains("modules"), "\(old)")

        /// Types a command and the answers to its questions, each after its prompt, and waits
        /// for `done`; then nothing in the data directory may hold the address or the password.
        func run(_ command: String, answers: [(prompt: String, text: String)] = [], done: String) {
            let start = terminal.output.endIndex
            terminal.type(command + "\r")
            var from = start
            for answer in answers {
                #expect(terminal.waitFor(answer.prompt, after: from), "\(command): no '\(answer.prompt)' in \(terminal.output[start...])")
                from = terminal.output.range(of: answer.prompt, range: from..<terminal.output.endIndex)?.upperBound ?? from
                usleep(100_000)  // the prompt is up: raw mode or echo-off is set before the answer arrives
                terminal.type(answer.text + "\r")
            }
            #expect(terminal.waitFor(done, after: start, timeout: 20), "\(command): \(terminal.output[start...])")
            #expect(terminal.waitFor("uniti> ", after: terminal.output.range(of: done, options: .backwards)?.upperBound))
            let bytes = Self.storedBytes(data)
            #expect(!Self.holds(bytes, Self.address), "the address is kept after '\(command)'")
            #expect(!Self.holds(bytes, Self.password), "the password is kept after '\(command)'")
        }

        run("register", answers: [("Username:", "maria"), ("E-mail:", Self.address), ("E-mail again:", Self.address),
                                  ("New password", Self.password), ("Repeat the password:", Self.password)],
            done: "Account created.")
        let code = try #require(try server.mailedCode(to: Self.address))
        run("activate \(code)", done: "Your account is active.")
        run("login \(Self.address)", answers: [("Password:", Self.password)], done: "Logged in as maria.")
        run("profile", done: Self.address)
        run("password reset", answers: [("E-mail:", Self.address)], done: "a reset code is on its way")
        run("modules", done: "TrackYourTinnitus")

        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)
        let kept = try String(contentsOfFile: history, encoding: .utf8)
        // The lines without an address are kept for the arrow keys; those with one are not.
        for line in ["register", "activate\\040\(code)", "profile", "password\\040reset", "modules"] {
            #expect(kept.contains(line), "\(line) missing from \(kept)")
        }
        #expect(!kept.contains("login"), "\(kept)")
        #expect(!Self.holds(Self.storedBytes(data), Self.address))
        #expect(!Self.holds(Self.storedBytes(data), Self.password))
    }

    @Test("a module command given an address is not kept in the history", .timeLimit(.minutes(15)))
    func moduleCommandWithAddress() throws {
        let data = TemporaryDataDirectory()
        let terminal = try Terminal("uniti", ["--data-dir", data.path])
        #expect(terminal.waitFor("uniti> "))
        terminal.type("tyt feedback --email \(Self.address) the reminders come at good times\r")
        #expect(terminal.waitForPrompt("uniti> ", after: "feedback"))
        terminal.type("tyt about\r")
        #expect(terminal.waitForPrompt("uniti> ", after: "tyt about"))
        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)
        let kept = try String(contentsOfFile: data.path + "/history", encoding: .utf8)
        #expect(kept.contains("tyt\\040about"), "\(kept)")
        #expect(!kept.contains("feedback") && !kept.contains("example.org"), "\(kept)")
    }
}
