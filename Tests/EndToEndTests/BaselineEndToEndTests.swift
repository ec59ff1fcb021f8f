import Foundation
import UNITITesting
import Testing

/// The shell's shared baseline with a real `uniti-server` on loopback and two data directories
/// standing for two devices of one person (Track Your Tinnitus thesis, FR8/FR9).
@Suite("Shared baseline across devices", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct BaselineEndToEndTests {
    @Test("a baseline stopped on one device continues on another; the finished sheet reaches the server once, with the first device's answers")
    func continueOnAnotherDevice() throws {
        let server = try StudyServer()
        try server.createStudy("base", modules: "tyt", questionnaires: ["uniti-case-history"])

        let phone = TemporaryDataDirectory()
        let laptop = TemporaryDataDirectory()
        func run(_ device: TemporaryDataDirectory, _ command: String, stdin: String = "") throws -> Program.Result {
            try Program.run("uniti", ["--data-dir", device.path, "--server", server.url, "-c", command], stdin: stdin)
        }
        #expect(try run(phone, "register", stdin: "ida\nida@example.org\nida@example.org\npassword-ida\npassword-ida\n").status == 0)
        let code = try #require(try server.mailedCode(to: "ida@example.org"))
        #expect(try run(phone, "activate \(code)").status == 0)
        let login = try run(phone, "login ida", stdin: "password-ida\n")
        #expect(login.status == 0, "\(login.err)")
        #expect(login.out.contains("2 baseline questionnaires are still open"))
        #expect(try run(phone, "study join base").status == 0)

        // The phone answers age group and gender, then the input ends: the answers stay as a draft.
        let stopped = try run(phone, "baseline", stdin: "1\n3\n")
        #expect(stopped.status != 0)
        #expect(try run(phone, "sync").status == 0)

        #expect(try run(laptop, "login ida", stdin: "password-ida\n").status == 0)
        // Resume ("yes"), the six remaining items of the case history, then stop before the distress scale.
        let resumed = try run(laptop, "baseline", stdin: "yes\n2\n2\n0\nno\n-\n4\n")
        #expect(resumed.out.contains("Continue"), "\(resumed.out)")
        #expect(try run(laptop, "sync").status == 0)
        #expect(try server.answers(label: "age-group") == ["1"])
        #expect(try server.answers(label: "gender") == ["3"])
        #expect(try server.answers(label: "worst-symptom") == ["4"])
        #expect(try server.sheets(of: "uniti-case-history") == 1)

        // The phone learns that the case history is finished elsewhere (within the same second,
        // as this test runs): no draft resumes there; the distress scale comes next.
        #expect(try run(phone, "sync").status == 0)
        let next = try run(phone, "baseline", stdin: "")
        #expect(!next.out.contains("Continue"))
        #expect(next.out.contains("Tinnitus distress (12 statements)"))
    }
}
