import Foundation
import Testing
import UNITITesting

/// The participant portal in a real browser: headless Chromium, driven by Selenium from
/// Tests/Portal/journeys.py, against a real `uniti-server` on loopback. The journeys read the
/// activation code from the server's mail spool as a participant reads the mail. Without the
/// venv, Chromium or chromedriver the test fails naming Scripts/bootstrap --tests: a skipped browser
/// test would look like a passed one.
@Suite("Participant portal in a browser", .serialized)
struct PortalBrowserTests {
    @Test("register, activate, log in, log out and back; CSRF-less POST refused; typed script escaped; language switch; throttle shared with the API")
    func portalJourneys() throws {
        let root = FHIRValidator.root
        let python = root.appendingPathComponent(".build-venv/tools/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw HeadlessChromium.Missing(tool: "\(python) (with selenium from Scripts/python-requirements.txt)")
        }
        let chromium = try HeadlessChromium.tool("chromium", "chromium-browser")
        let chromedriver = try HeadlessChromium.tool("chromedriver")
        let server = try StudyServer()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("Tests/Portal/journeys.py").path, server.url, server.spool]
        var environment = ProcessInfo.processInfo.environment
        environment["CHROMIUM"] = chromium
        environment["CHROMEDRIVER"] = chromedriver
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting, so a long traceback cannot fill a pipe and stall the child.
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 0, "\(output)\n\(errors.suffix(3000))")
        for journey in ["account journey", "csrf journey", "escaping journey", "language journey", "throttle journey"] {
            #expect(output.contains(journey), "\(journey) did not finish:\n\(output)\n\(errors.suffix(3000))")
        }
    }
}
