import Foundation
import Testing
import UNITITesting

/// The participant portal in a real browser: headless Chromium, driven by Selenium from the
/// journey scripts in Tests/Portal (sharing Tests/Portal/portal_kit.py), against a real
/// `uniti-server` on loopback. The journeys read the activation code from the server's mail
/// spool as a participant reads the mail. Every page they open is checked with axe-core
/// (`portal_kit.audit`). Without the venv, Chromium or chromedriver the test
/// fails naming Scripts/bootstrap --tests: a skipped browser test would look like a passed one.
@Suite("Participant portal in a browser", .serialized, .timeLimit(.minutes(15)))
struct PortalBrowserTests {
    @Test("register, activate, log in, log out and back; CSRF-less POST refused; typed script escaped; language switch; every page accessible signed in and out; throttle shared with the API")
    func portalJourneys() throws {
        let server = try StudyServer()
        try PortalJourney.run("journeys.py", server: server,
                              expecting: ["account journey", "csrf journey", "escaping journey", "language journey",
                                          "every-page journey", "throttle journey"])
    }
}

private let oneBrowser = NSLock()

/// Runs one journey script of Tests/Portal against a server and checks that it ended well and
/// printed every expected journey line.
enum PortalJourney {
    /// - Parameters:
    ///   - program: the shell program journeys run as `uniti(...)` (`$UNITI_PROGRAM`), by default
    ///     the one of this build (`uniti` integrated, else none is passed).
    ///   - environment: more variables for the script.
    static func run(_ script: String, server: StudyServer, arguments: [String] = [], program: String? = nil,
                    environment extra: [String: String] = [:], expecting journeys: [String],
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        // One browser at a time: each journey starts a Chromium, and several at once on a
        // two-core machine starve the other tests' timing (a gpsd fix, an HTTP timeout) more
        // than they save.
        oneBrowser.lock()
        defer { oneBrowser.unlock() }
        let root = FHIRValidator.root
        let python = root.appendingPathComponent(".build-venv/tools/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw HeadlessChromium.Missing(tool: "\(python) (with selenium from Scripts/python-requirements.txt)")
        }
        let chromium = try HeadlessChromium.tool("chromium", "chromium-browser")
        let chromedriver = try HeadlessChromium.tool("chromedriver")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("Tests/Portal/\(script)").path, server.url, server.spool] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CHROMIUM"] = chromium
        environment["CHROMEDRIVER"] = chromedriver
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        if let program = program ?? (Builds.isIntegrated ? "uniti" : nil) {
            environment["UNITI_PROGRAM"] = Program.path(program)
        }
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read stderr on its own thread while stdout is read here, so a long traceback cannot
        // fill a pipe and stall the child.
        let errorBox = ErrorText()
        let readingErrors = DispatchGroup()
        readingErrors.enter()
        DispatchQueue.global().async {
            errorBox.text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            readingErrors.leave()
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readingErrors.wait()
        let errors = errorBox.text
        process.waitUntilExit()

        #expect(process.terminationStatus == 0, "\(script): \(output)\n\(errors.suffix(4000))", sourceLocation: sourceLocation)
        // portal_kit checks every page the journey opened with axe-core and says so last.
        for journey in journeys + ["accessibility: axe-core"] {
            #expect(output.contains(journey), "\(journey) did not finish:\n\(output)\n\(errors.suffix(4000))", sourceLocation: sourceLocation)
        }
    }
}

private final class ErrorText: @unchecked Sendable {
    var text = ""
}
