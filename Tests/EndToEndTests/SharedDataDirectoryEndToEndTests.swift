import Foundation
import Testing
import UNITITesting

/// The real `uniti` and a real standalone program (from the other build configuration) on one
/// data directory, in both orders: each opens what the other wrote and sees the person's data.
/// Scripts/test builds both configurations before it runs either's tests.
@Suite("uniti and a standalone program on one data directory", .serialized, .timeLimit(.minutes(15)))
struct SharedDataDirectoryEndToEndTests {
    /// Where the other configuration's programs are: `$UNITI_OTHER_BIN_DIR`, else the other
    /// scratch path's debug folder in this checkout.
    static func otherBinDirectory() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["UNITI_OTHER_BIN_DIR"] {
            return URL(fileURLWithPath: override)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent(Builds.isIntegrated ? ".build-standalone/debug" : ".build/debug")
        let probe = folder.appendingPathComponent(Builds.isIntegrated ? "track-your-tinnitus" : "uniti").path
        guard FileManager.default.isExecutableFile(atPath: probe) else {
            Issue.record("\(probe) is missing: build the other configuration first (Scripts/test builds both), or set UNITI_OTHER_BIN_DIR")
            throw CocoaError(.fileNoSuchFile)
        }
        return folder
    }

    /// `uniti` and `track-your-tinnitus`, whichever configuration each comes from.
    static func programs() throws -> (host: String, standalone: String) {
        let other = try otherBinDirectory()
        return Builds.isIntegrated
            ? (Program.path("uniti"), other.appendingPathComponent("track-your-tinnitus").path)
            : (other.appendingPathComponent("uniti").path, Program.path("track-your-tinnitus"))
    }

    static func run(_ path: String, _ data: TemporaryDataDirectory, _ command: String, stdin: String = "") throws -> Program.Result {
        try Program.run(path, ["--data-dir", data.path, "-c", command], stdin: stdin)
    }

    static let answers = "yes\n35\n60\n4\n2\n50\n80\n25\n"

    @Test("uniti first, then track-your-tinnitus: the standalone program opens the directory and shows the check-in")
    func hostFirst() throws {
        let (host, standalone) = try Self.programs()
        let data = TemporaryDataDirectory()
        let fill = try Self.run(host, data, "tyt fill", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        #expect(try Self.run(host, data, "son frequency set 5000").status == 0)
        let results = try Self.run(standalone, data, "results --json")
        #expect(results.status == 0, "\(results.err)")
        #expect(results.out.contains("[0, 35, 60, 4, 2, 50, 80, 25]"))
        // And back: the host still opens it, with Shades Of Noise's data intact.
        let frequency = try Self.run(host, data, "son frequency")
        #expect(frequency.status == 0 && frequency.out.contains("5000"), "\(frequency.err)")
    }

    @Test("track-your-tinnitus first, then uniti: the host adds its other modules and shows the check-in")
    func standaloneFirst() throws {
        let (host, standalone) = try Self.programs()
        let data = TemporaryDataDirectory()
        let fill = try Self.run(standalone, data, "fill", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        let results = try Self.run(host, data, "tyt results --json")
        #expect(results.status == 0, "\(results.err)")
        #expect(results.out.contains("[0, 35, 60, 4, 2, 50, 80, 25]"))
        #expect(try Self.run(host, data, "son frequency set 5000").status == 0)
        #expect(try Self.run(standalone, data, "results").status == 0)
    }
}
