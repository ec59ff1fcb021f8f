import Foundation
import Testing
import UNITITesting

/// The systemd units of `Deploy/systemd`, as `Scripts/install` installs them into a prefix,
/// checked by systemd's own tools (Documentation/deploy.md, "Checks"). `systemd-analyze verify`
/// exits 0 even for an unknown key or a value it cannot parse (it only prints a warning), so any
/// output at all fails the test.
@Suite("systemd units of the deployment guide", .serialized, .timeLimit(.minutes(5)))
struct DeploymentUnitsTests {
    static let units = ["uniti-server.service", "uniti-server-backup.service", "uniti-server-backup.timer",
                        "uniti-server-compact.service", "uniti-server-compact.timer"]
    static let services = units.filter { $0.hasSuffix(".service") }

    /// systemd-analyze from Debian's `systemd` package; missing, the test fails saying so (a
    /// skipped check would look like a passed one).
    static func systemdAnalyze() throws -> String {
        let path = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Issue.record("\(path) is missing: run Scripts/bootstrap --tests (it installs Debian's systemd package)")
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    @Test("the installed units pass systemd-analyze verify without a single warning, and ExecStart names the installed server")
    func unitsVerify() throws {
        let analyze = try Self.systemdAnalyze()
        let installation = try InstalledProgramsTests.Installation()
        let folder = installation.prefix + "/lib/systemd/system"
        let paths = Self.units.map { folder + "/" + $0 }
        for path in paths {
            #expect(FileManager.default.fileExists(atPath: path), "not installed: \(path)")
        }
        // verify checks that every Exec* command exists and is executable, so the installed
        // binary is what the units run.
        let verified = try Program.run(analyze, ["verify", "--man=no"] + paths)
        #expect(verified.status == 0, "\(verified.err)")
        #expect(verified.out.isEmpty && verified.err.isEmpty, "systemd-analyze verify: \(verified.out)\(verified.err)")

        for unit in Self.services {
            let text = try String(contentsOfFile: folder + "/" + unit, encoding: .utf8)
            #expect(text.contains("ExecStart=\(installation.bin("uniti-server")) "), "\(unit) does not run the installed server")
            #expect(!text.contains("/usr/local/bin/"), "\(unit) still names /usr/local/bin")
        }
        let service = try String(contentsOfFile: folder + "/uniti-server.service", encoding: .utf8)
        for line in ["NoNewPrivileges=yes", "ProtectSystem=strict", "StateDirectory=uniti-server", "StateDirectoryMode=0700", "User=uniti"] {
            #expect(service.split(separator: "\n").contains(Substring(line)), "uniti-server.service lacks \(line)")
        }
        let backup = try String(contentsOfFile: folder + "/uniti-server-backup.service", encoding: .utf8)
        #expect(backup.contains(" backup --database /var/lib/uniti-server/study.sqlite"))
        let compact = try String(contentsOfFile: folder + "/uniti-server-compact.service", encoding: .utf8)
        #expect(compact.contains(" maintenance compact --if-needed --database /var/lib/uniti-server/study.sqlite"))
    }

    @Test("a broken unit is caught: an unknown key, and an ExecStart that names no installed program")
    func brokenUnitIsCaught() throws {
        let analyze = try Self.systemdAnalyze()
        let folder = NSTemporaryDirectory() + "uniti-units-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try String(contentsOf: Repository.root.appendingPathComponent("Deploy/systemd/uniti-server.service"), encoding: .utf8)
        let uninstalled = folder + "/uniti-server.service"
        try source.replacingOccurrences(of: "/usr/local/bin/uniti-server", with: folder + "/bin/uniti-server")
            .write(toFile: uninstalled, atomically: true, encoding: .utf8)
        let missing = try Program.run(analyze, ["verify", "--man=no", uninstalled])
        #expect(missing.status != 0 && missing.err.contains("is not executable"), "\(missing.err)")
        let typo = folder + "/typo.service"
        try source.replacingOccurrences(of: "/usr/local/bin/uniti-server", with: "/bin/true")
            .replacingOccurrences(of: "ProtectSystem=strict", with: "ProtectSytem=strict")
            .write(toFile: typo, atomically: true, encoding: .utf8)
        let warned = try Program.run(analyze, ["verify", "--man=no", typo])
        #expect(warned.err.contains("Unknown key"), "\(warned.err)")
    }

    @Test("under a real systemd (PID 1 of new namespaces): the server answers /health as uniti with a 0700 state directory, every service rates at most 2.0, backup and compaction run, the timers are scheduled, a stop is clean")
    func unitsRunUnderSystemd() throws {
        let installation = try InstalledProgramsTests.Installation()
        let checked = try Self.checkSystemd(installation.prefix)
        #expect(checked.status == 0, "\(checked.out)\(checked.err)")
        #expect(checked.out.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 12, "\(checked.out)")
    }

    @Test("the check under systemd sees what systemd enforces: without StateDirectory, ProtectSystem=strict leaves the server no place for its database")
    func systemdEnforcesTheHardening() throws {
        let installation = try InstalledProgramsTests.Installation()
        let unit = installation.prefix + "/lib/systemd/system/uniti-server.service"
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        try text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("StateDirectory") }
            .joined(separator: "\n").write(toFile: unit, atomically: true, encoding: .utf8)
        let checked = try Self.checkSystemd(installation.prefix)
        #expect(checked.status == 1, "\(checked.out)\(checked.err)")
        #expect(checked.out.contains("FAIL GET /health answers 200"), "\(checked.out)")
        #expect(checked.out.contains("ok systemd-analyze security rates uniti-server.service"), "the rating alone does not notice: \(checked.out)")
    }

    /// `Scripts/check-systemd PREFIX`: systemd booted in new PID, mount and network namespaces
    /// (as root), the installed units started in it; one line per check.
    static func checkSystemd(_ prefix: String) throws -> Program.Result {
        guard getuid() == 0 else {
            Issue.record("Scripts/check-systemd boots systemd in new namespaces and needs root")
            throw CocoaError(.featureUnsupported)
        }
        return try Program.run(Repository.root.appendingPathComponent("Scripts/check-systemd").path, [prefix])
    }

    @Test("systemd-analyze security rates every service at most 2.0 (\"OK\")")
    func servicesAreHardened() throws {
        let analyze = try Self.systemdAnalyze()
        let installation = try InstalledProgramsTests.Installation()
        for unit in Self.services {
            let path = installation.prefix + "/lib/systemd/system/" + unit
            // The threshold is in tenths of the exposure level it prints.
            let rated = try Program.run(analyze, ["security", "--offline=yes", "--no-pager", "--threshold=20", path])
            #expect(rated.status == 0, "\(unit): \(rated.out.split(separator: "\n").last ?? "")\(rated.err)")
            #expect(rated.out.contains("Overall exposure level for \(unit)"), "\(rated.out)")
        }
    }
}
