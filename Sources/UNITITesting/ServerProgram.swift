import Foundation

/// Runs the programs that start servers for tests (`pg_ctl`, `nginx`) and watches over them.
///
/// Such a program leaves a server running in the background, which inherits every descriptor
/// the program had: the one by which Foundation learns that the program ended (so the test
/// would wait for the server, not for the program), and any pipe (which would then never reach
/// its end). So programs run through a shell that first closes every descriptor above 2, and
/// their output goes to files.
enum ServerProgram {
    /// Runs `command` (as `owner` through `runuser` when given) and returns what it printed;
    /// throws with its error output when it fails.
    @discardableResult
    static func run(_ command: [String], as owner: String? = nil) throws -> String {
        let full = (owner.map { [runuser, "-u", $0, "--"] } ?? []) + command
        let script = "for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ \"$n\" -gt 2 ] 2>/dev/null; then eval \"exec $n>&-\"; fi; done; exec \"$@\""
        return try checked("/bin/bash", ["-c", script, "bash"] + full)
    }

    /// util-linux's `runuser` (in /usr/sbin, or /sbin on systems without the merged /usr).
    static let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "runuser"

    /// Runs a program with its output in files; throws with its error output when it fails.
    @discardableResult
    static func checked(_ executable: String, _ arguments: [String]) throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-run-\(UUID().uuidString)")
        let outPath = scratch.path + ".out", errPath = scratch.path + ".err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        process.waitUntilExit()
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw Failure(description: "\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(message)\(output)")
        }
        return output
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A shell that waits for this test process to end and then runs `stop`: a process killed by
    /// a signal runs no `atexit`, and a server left running would hold its port and files.
    static func watchOverThisProcess(stop: String) {
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop)"
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", script]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try? watchdog.run()
    }
}
