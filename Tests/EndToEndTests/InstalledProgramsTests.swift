import Foundation
import Testing
import UNITITesting

/// The programs as an operator installs them: `Scripts/install` puts this configuration's built
/// programs into a temporary prefix (its `--no-build` way, so the test does not build release
/// again), and they run from there in a mount namespace where the repository, with its build
/// folders, is covered by an empty tmpfs. Nothing of the source or build tree can be found: no
/// resource bundle beside the build's binaries, no path SwiftPM compiled into them.
@Suite("Installed programs, away from the build tree", .serialized, .timeLimit(.minutes(10)))
struct InstalledProgramsTests {
    /// A temporary prefix with this configuration's programs installed by `Scripts/install`.
    final class Installation: @unchecked Sendable {
        let prefix = NSTemporaryDirectory() + "uniti-prefix-\(UUID().uuidString)"

        init() throws {
            let from = Program.binDirectory.path
            let source = Builds.isIntegrated ? ["--from", from] : ["--standalone-from", from]
            let install = try Program.run(Repository.root.appendingPathComponent("Scripts/install").path,
                                          ["--no-build"] + source + [prefix])
            guard install.status == 0 else {
                Issue.record("Scripts/install failed (\(install.status)): \(install.err)")
                throw CocoaError(.fileWriteUnknown)
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: prefix) }

        func bin(_ program: String) -> String { prefix + "/bin/" + program }
    }

    /// The command line that runs `program` with the repository and the build folder hidden: a
    /// private mount namespace (`unshare`, as root; `--map-root-user` otherwise) in which an empty
    /// tmpfs is mounted over both before the program is exec'd, keeping its process id.
    static func hidden(_ program: String) -> [String] {
        // The build folder first: once the repository is covered, a folder inside it is out of reach.
        let covered = [Program.binDirectory.resolvingSymlinksInPath().path, Repository.root.path]
        let mounts = covered.map { "mount -t tmpfs -o size=1m tmpfs '\($0)' || exit 97" }.joined(separator: "; ")
            + "; cd /"  // not even through the working directory
        let namespace = getuid() == 0 ? ["--mount"] : ["--map-root-user", "--mount"]
        return ["/usr/bin/unshare"] + namespace + ["--propagation", "private", "/bin/sh", "-c", mounts + "; exec \"$0\" \"$@\"", program]
    }

    /// Runs an installed program in the hidden tree on `data`, one command, answers on stdin.
    static func run(_ installation: Installation, _ program: String, _ data: TemporaryDataDirectory, _ command: String,
                    stdin: String = "") throws -> Program.Result {
        let line = hidden(installation.bin(program))
        return try Program.run(line[0], Array(line.dropFirst()) + ["--data-dir", data.path, "-c", command], stdin: stdin)
    }

    static let answers = "yes\n35\n60\n4\n2\n50\n80\n25\n"

    @Test("the tree is really hidden: a program run this way cannot read the repository")
    func treeIsHidden() throws {
        let line = Self.hidden("/bin/ls")
        let listing = try Program.run(line[0], Array(line.dropFirst()) + ["-A", Repository.root.path])
        #expect(listing.status == 0, "\(listing.err)")
        #expect(listing.out.isEmpty, "the repository is still visible: \(listing.out)")
        #expect(FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent("Package.swift").path))
    }

    @Test("installed, the client lists its modules, fills a tyt check-in and lists the sounds, with no build tree")
    func clientRunsInstalled() throws {
        let installation = try Installation()
        let data = TemporaryDataDirectory()
        // (program, its command prefix for a module's commands): the shell, or the standalone programs.
        let tinnitus = Builds.isIntegrated ? ("uniti", "tyt ") : ("track-your-tinnitus", "")
        let noise = Builds.isIntegrated ? ("uniti", "son ") : ("shades-of-noise", "")
        let programs = Builds.isIntegrated ? ["uniti"] : Builds.standalonePrograms

        for program in programs {
            let modules = try Self.run(installation, program, data, "modules --json")
            #expect(modules.status == 0, "\(program): \(modules.err)")
            let object = try JSONSerialization.jsonObject(with: Data(modules.out.utf8)) as? [String: Any]
            let listed = (object?["modules"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            // Enabled by the bundled default study, which is compiled in.
            let enabled = (object?["modules"] as? [[String: Any]])?.filter { $0["enabled"] as? Bool == true }.count ?? 0
            #expect(listed.count == (Builds.isIntegrated ? 5 : 1), "\(program): \(modules.out)")
            #expect(enabled == listed.count, "\(program): \(modules.out)")
        }

        let fill = try Self.run(installation, tinnitus.0, data, tinnitus.1 + "fill", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        let results = try Self.run(installation, tinnitus.0, data, tinnitus.1 + "results --json")
        #expect(results.out.contains("[0, 35, 60, 4, 2, 50, 80, 25]"), "\(results.out)\(results.err)")

        let sounds = try Self.run(installation, noise.0, data, noise.1 + "sounds")
        #expect(sounds.status == 0, "\(sounds.err)")
        // From the bundled catalogue (Configurations/Resources/sounds.json).
        #expect(sounds.out.contains("Pink noise") && sounds.out.contains("Brown noise"), "\(sounds.out)")
    }

    @Test("installed, the server serves the portal's login page, its style sheet and the OpenAPI document, with no build tree")
    func serverRunsInstalled() throws {
        let installation = try Installation()
        let server = try StudyServer(command: Self.hidden(installation.bin("uniti-server")))
        defer { server.stop() }

        let login = try Program.run("/usr/bin/curl", ["-sS", "-w", "\n%{http_code}", server.url + "/login"])
        #expect(login.out.hasSuffix("\n200"), "\(login.out.suffix(200)) \(login.err)")
        #expect(login.out.contains(#"<form method="post" action="/login">"#))
        #expect(login.out.contains(#"<link rel="stylesheet" href="/portal.css">"#))

        // Served byte for byte as committed: the files compiled in are the repository's.
        let sources = Repository.root.appendingPathComponent("Sources/UNITIServer/Resources")
        for (path, file) in [("/portal.css", "Portal/portal.css"), ("/portal.js", "Portal/portal.js")] {
            let served = try Program.run("/usr/bin/curl", ["-sS", "-f", server.url + path])
            #expect(served.status == 0, "\(path): \(served.err)")
            #expect(served.out == (try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)), "\(path)")
        }
        // The OpenAPI document: the committed one, every line in its order, with the installed
        // modules' routes joined in (Track Your Hearing's rewards).
        let document = try Program.run("/usr/bin/curl", ["-sS", "-f", server.url + "/api/v1/openapi.yaml"])
        #expect(document.status == 0, "\(document.err)")
        var served = document.out.split(separator: "\n", omittingEmptySubsequences: false)[...]
        for line in try String(contentsOf: sources.appendingPathComponent("openapi.yaml"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false) {
            guard let found = served.firstIndex(of: line) else {
                Issue.record("the served OpenAPI document lacks, or reorders, the committed line: \(line)")
                break
            }
            served = served[(found + 1)...]
        }
        #expect(document.out.contains("\n  /rewards:\n"))
    }
}
