import Foundation
import Testing
import UNITITesting

/// The data directory on a disk that fills up, turns read-only, or is held by another program:
/// every answer the person gave is either stored or kept (as a draft, or outside the data
/// directory until it can be stored), and the person reads one line in our words.
///
/// The disk is a small tmpfs the test mounts, which needs root; without root these tests are
/// skipped with that reason shown in the test output.
@Suite("Full disk, read-only folder, a database held by another program", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct StorageFaultTests {
    static let isRoot = getuid() == 0
    static let answers = ["yes", "35", "60", "4", "2", "50", "80", "25"]

    /// A tmpfs of `size` mounted for the test, unmounted at the end.
    final class SmallDisk {
        let path: String
        init(size: String = "4m") throws {
            path = NSTemporaryDirectory() + "uniti-disk-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mount = try Program.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path])
            guard mount.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["reason": mount.err]) }
        }
        /// Fills the disk until nothing is left (a file of zeros, kept until `free()`).
        func fill() {
            let handle = FileHandle(forWritingAtPath: path + "/filler") ?? {
                _ = FileManager.default.createFile(atPath: path + "/filler", contents: nil)
                return FileHandle(forWritingAtPath: path + "/filler")!
            }()
            let block = Data(count: 64 * 1024)
            while (try? handle.write(contentsOf: block)) != nil {}
            try? handle.close()
        }
        func free() { try? FileManager.default.removeItem(atPath: path + "/filler") }
        func remount(readOnly: Bool) throws {
            let result = try Program.run("/bin/mount", ["-o", "remount," + (readOnly ? "ro" : "rw"), path])
            guard result.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["reason": result.err]) }
        }
        deinit {
            _ = try? Program.run("/bin/umount", ["-l", path])
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Where rescued answers go during the test (on /tmp, not on the small disk).
    static func environment(rescue: TemporaryDataDirectory) -> [String: String] {
        ["UNITI_RESCUE_DIR": rescue.path]
    }

    static func results(_ data: String, environment: [String: String]) throws -> String {
        try Program.run("uniti", ["--data-dir", data, "-c", "tyt results --json"], environment: environment).out
    }

    @Test("a full disk before a check-in: refused before the first question, in one line of our words",
          .enabled(if: isRoot, "needs root to mount a small tmpfs"))
    func fullBeforeStart() throws {
        let disk = try SmallDisk()
        let data = disk.path + "/data"
        #expect(try Program.run("uniti", ["--data-dir", data, "-c", "modules"]).status == 0)
        disk.fill()
        let fill = try Program.run("uniti", ["--data-dir", data, "-c", "tyt fill"], stdin: Self.answers.joined(separator: "\n") + "\n")
        #expect(fill.status == 1)
        #expect(!fill.out.contains("Can you hear"), "a question was asked: \(fill.out)")
        #expect(fill.err.contains("no room to save answers"), "\(fill.err)")
        #expect(!fill.err.contains("SQLite"))
        #expect(fill.err.split(separator: "\n").count == 1)
        // Showing things still works on the full disk.
        #expect(try Program.run("uniti", ["--data-dir", data, "-c", "tyt results"]).status == 0)
    }

    @Test("the disk fills up while answering: the answers are kept outside the data directory and come back as a draft that finishes the check-in",
          .enabled(if: isRoot, "needs root to mount a small tmpfs"))
    func fullWhileAnswering() throws {
        let disk = try SmallDisk()
        let rescue = TemporaryDataDirectory()
        let environment = Self.environment(rescue: rescue)
        let data = disk.path + "/data"
        #expect(try Program.run("uniti", ["--data-dir", data, "-c", "modules"], environment: environment).status == 0)
        let fill = try Program.start("uniti", ["--data-dir", data, "-c", "tyt fill"], environment: environment)
        fill.write("yes\n35\n")
        #expect(ConcurrencyTests.waitForQuestion(3, of: fill), "\(fill.out)")
        disk.fill()  // between the second and the third answer
        let ended = fill.finish(stdin: Self.answers[2...].joined(separator: "\n") + "\n")
        #expect(ended.status == 1)
        #expect(ended.err.contains("is full"), "\(ended.err)")
        #expect(ended.err.contains(rescue.path), "\(ended.err)")
        #expect(!ended.err.contains("SQLite"))
        let kept = try FileManager.default.subpathsOfDirectory(atPath: rescue.path).filter { $0.hasSuffix(".json") }
        #expect(kept.count == 1)

        disk.free()
        // The next start brings the answers back, says so, and the check-in finishes with them.
        let next = try Program.run("uniti", ["--data-dir", data, "-c", "tyt fill"], stdin: "yes\n" + Self.answers[3...].joined(separator: "\n") + "\n",
                                   environment: environment)
        #expect(next.status == 0, "\(next.err)")
        #expect(next.err.contains("1 unfinished questionnaire answered while the data could not be saved is back as a draft"), "\(next.err)")
        #expect(try Self.results(data, environment: environment).contains("[0, 35, 60, 4, 2, 50, 80, 25]"))
        #expect(try FileManager.default.subpathsOfDirectory(atPath: rescue.path).filter { $0.hasSuffix(".json") }.isEmpty)
    }

    @Test("a read-only data directory: showing works, answering is refused before the first question",
          .enabled(if: isRoot, "needs root to mount a small tmpfs"))
    func readOnlyFolder() throws {
        let disk = try SmallDisk()
        let data = disk.path + "/data"
        #expect(try Program.run("uniti", ["--data-dir", data, "-c", "tyt fill"], stdin: Self.answers.joined(separator: "\n") + "\n").status == 0)
        try disk.remount(readOnly: true)
        defer { try? disk.remount(readOnly: false) }
        let results = try Program.run("uniti", ["--data-dir", data, "-c", "tyt results --json"])
        #expect(results.status == 0, "\(results.err)")
        #expect(results.out.contains("[0, 35, 60, 4, 2, 50, 80, 25]"))
        let fill = try Program.run("uniti", ["--data-dir", data, "-c", "tyt fill"], stdin: Self.answers.joined(separator: "\n") + "\n")
        #expect(fill.status == 1)
        #expect(fill.err.contains("read-only"), "\(fill.err)")
        #expect(!fill.out.contains("Can you hear"))
        #expect(fill.err.split(separator: "\n").count == 1, "\(fill.err)")
    }

    @Test("a database another program holds locked for longer than UNITI waits: the answers are kept and come back")
    func databaseHeldByAnotherProgram() throws {
        let data = TemporaryDataDirectory()
        let rescue = TemporaryDataDirectory()
        let environment = Self.environment(rescue: rescue)
        #expect(try Program.run("uniti", ["--data-dir", data.path, "-c", "modules"], environment: environment).status == 0)
        // Another program takes the write lock and keeps it (sqlite3 waits for more input).
        let holder = try Program.start("/usr/bin/sqlite3", [data.path + "/uniti.sqlite"])
        holder.write("BEGIN IMMEDIATE;\nINSERT INTO core_settings(key, value) VALUES ('held', 'yes');\nSELECT 'locked';\n")
        #expect(holder.waitForOutput("locked"))
        let fill = try Program.run("uniti", ["--data-dir", data.path, "-c", "tyt fill"], stdin: Self.answers.joined(separator: "\n") + "\n",
                                   environment: environment)
        holder.finish(stdin: "ROLLBACK;\n")
        #expect(fill.status == 1)
        #expect(fill.err.contains("another UNITI program has been writing"), "\(fill.err)")
        #expect(fill.err.contains(rescue.path))
        let next = try Program.run("uniti", ["--data-dir", data.path, "-c", "tyt fill"], stdin: "yes\n" + Self.answers[1...].joined(separator: "\n") + "\n",
                                   environment: environment)
        #expect(next.status == 0, "\(next.err)")
        #expect(try Self.results(data.path, environment: environment).contains("[0, 35, 60, 4, 2, 50, 80, 25]"))
    }
}
