import Foundation
import UNITITesting
import Testing
import UNITICore

/// The standalone programs, tested when this test run is the standalone build.
@Suite("Standalone programs end to end", .enabled(if: !Builds.isIntegrated), .timeLimit(.minutes(15)))
struct StandaloneProgramTests {
    @Test("each program names itself and its build kind, and has its module's commands at top level")
    func programsRun() throws {
        for name in Builds.standalonePrograms {
            let version = try Program.run(name, ["--version"])
            #expect(version.status == 0)
            #expect(version.out == "\(name) \(UNITIVersion.string) (standalone build)\n")
            let data = TemporaryDataDirectory()
            let about = try Program.run(name, ["--data-dir", data.path, "-c", "about"])
            #expect(about.status == 0, "\(name): \(about.err)")
            #expect(about.out.contains("standalone build"))
            let modules = try Program.run(name, ["--data-dir", data.path, "-c", "modules --json"])
            #expect(modules.out.contains("\"build\" : \"standalone\""))
            #expect(modules.out.components(separatedBy: "\"id\"").count == 2)
        }
    }

    @Test("standalone, module-prefixed and module-switching commands do not exist")
    func noPrefixNoUse() throws {
        let data = TemporaryDataDirectory()
        let prefixed = try Program.run("track-your-tinnitus", ["--data-dir", data.path, "-c", "tyt about"])
        #expect(prefixed.status == 1)
        let use = try Program.run("track-your-tinnitus", ["--data-dir", data.path, "-c", "use tyt"])
        #expect(use.status == 1)
    }

    @Test("the host program of this standalone build refuses to run, saying how to build it")
    func hostRefuses() throws {
        let result = try Program.run("uniti", ["-c", "modules"])
        #expect(result.status == 2)
        #expect(result.err.contains("uniti: this binary is a standalone build"))
        #expect(result.err.split(separator: "\n").count == 1)
    }
}
