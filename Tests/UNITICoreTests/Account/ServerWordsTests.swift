import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITICore

/// The study server answers with stable error codes; the program words them from its own
/// string tables, in the person's language, against a real `uniti-server` on loopback. A code
/// this version does not know keeps the server's text, never nothing.
@Suite("The server's words in the person's language", .serialized, .timeLimit(.minutes(10)))
struct ServerWordsTests {
    static func german<T>(_ body: () throws -> T) rethrows -> T {
        try CurrentLanguage.$scope.withValue(LockedValue(.german), operation: body)
    }

    @Test("a wrong password at login, a used activation code and a wrong study password read German in German")
    func germanRefusals() throws {
        let server = try StudyServer()
        let password = "password-nora"
        #expect(try server.coordinator(["study", "create", "closed-door", "--title", "Closed door", "--access", "password",
                                        "--password", "door-password-1", "--modules", "tyt", "--running"]).status == 0)
        let harness = try ModuleHarness([])
        try harness.services.sessions.setServer(server.url)
        harness.input.append(["nora", "nora@example.org", "nora@example.org", password, password])
        try #require(harness.runCapturing("register").succeeded, "\(harness.output.err)")
        let code = try #require(try server.mailedCode(to: "nora@example.org"))
        try #require(harness.runCapturing("activate \(code)").succeeded, "\(harness.output.err)")

        try Self.german {
            let used = harness.runCapturing("activate \(code)")
            #expect(!used.succeeded)
            #expect(used.err.contains("dieser Code ist unbekannt, schon verwendet oder abgelaufen"), "\(used.err)")
            #expect(!used.err.contains("This activation code"), "\(used.err)")

            harness.input.append(["not-the-password"])
            let wrong = harness.runCapturing("login nora")
            #expect(!wrong.succeeded)
            #expect(wrong.err.contains("Anmeldename oder Passwort ist falsch."), "\(wrong.err)")
            #expect(!wrong.err.contains("The login or the password is wrong"), "\(wrong.err)")

            harness.input.append([password])
            try #require(harness.runCapturing("login nora").succeeded, "\(harness.output.err)")
            harness.input.append(["y", "wrong-door-password"])
            let door = harness.runCapturing("study join closed-door")
            #expect(!door.succeeded)
            #expect(door.err.contains("das Passwort für diese Studie ist falsch."), "\(door.err)")
        }
    }

    @Test("before any login, joining a study says that it needs an account and names register and login")
    func joinBeforeLogin() throws {
        let server = try StudyServer()
        try server.createStudy("open-door", modules: "tyt", questionnaires: [])
        let harness = try ModuleHarness([])
        try harness.services.sessions.setServer(server.url)
        let join = harness.runCapturing("study join open-door")
        #expect(!join.succeeded)
        #expect(join.err.contains("'register'") && join.err.contains("'login'"), "\(join.err)")
        #expect(!join.err.contains("no longer accepts"), "\(join.err)")
    }

    @Test("joining and leaving name the study by its title, with its id in brackets")
    func joinNamesTheTitle() throws {
        let server = try StudyServer()
        #expect(try server.coordinator(["study", "create", "mood", "--title", "Mood in daily life", "--access", "public",
                                        "--modules", "tyt", "--running"]).status == 0)
        let harness = try ModuleHarness([])
        try harness.services.sessions.setServer(server.url)
        let password = "password-ida"
        harness.input.append(["ida", "ida@example.org", "ida@example.org", password, password])
        try #require(harness.runCapturing("register").succeeded, "\(harness.output.err)")
        let code = try #require(try server.mailedCode(to: "ida@example.org"))
        try #require(harness.runCapturing("activate \(code)").succeeded)
        harness.input.append([password])
        try #require(harness.runCapturing("login ida").succeeded)
        let join = harness.runCapturing("study join mood")
        #expect(join.succeeded, "\(join.err)")
        #expect(join.out.contains("You take part in Mood in daily life (mood) now."), "\(join.out)")
        harness.input.append(["y"])
        let leave = harness.runCapturing("study leave mood --keep-answers")
        #expect(leave.out.contains("You left Mood in daily life (mood)."), "\(leave.out) \(leave.err)")
    }

    @Test("a code the program does not know shows the server's text, and an empty one the code")
    func unknownCodes() {
        Self.german {
            #expect(APIError.rejected(status: 422, code: "invalid_email", message: "Give an e-mail address.").message
                    == "das ist keine E-Mail-Adresse (name@example.org).")
            #expect(APIError.rejected(status: 422, code: "brand_new_rule", message: "A rule of a newer server.").message
                    == "A rule of a newer server.")
            #expect(APIError.rejected(status: 422, code: "brand_new_rule", message: "").message == "brand_new_rule")
        }
    }
}
