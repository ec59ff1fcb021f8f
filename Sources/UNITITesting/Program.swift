import Foundation
import UNITICore
import UNITIHost
import UNITIProtocol

/// Runs the real binaries built next to the test bundle, in a temporary data directory.
public enum Program {
    /// The folder with the built products (`.build/debug` or `.build-standalone/debug`), or
    /// `$UNITI_BIN_DIR` when set.
    public static let binDirectory: URL = {
        if let override = ProcessInfo.processInfo.environment["UNITI_BIN_DIR"] {
            return URL(fileURLWithPath: override)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("uniti").path) {
                return url
            }
        }
        fatalError("cannot find the built programs near \(CommandLine.arguments[0]); set UNITI_BIN_DIR")
    }()

    /// A built program by name, or `name` itself when it is an absolute path.
    public static func path(_ name: String) -> String {
        if name.hasPrefix("/") { return name }
        return binDirectory.appendingPathComponent(name).path
    }

    public struct Result: Sendable {
        public let status: Int32
        public let out: String
        public let err: String
    }

    /// Runs `name` with arguments, feeding `stdin`, and waits for it.
    @discardableResult
    public static func run(_ name: String, _ arguments: [String], stdin: String = "",
                    environment: [String: String] = [:]) throws -> Result {
        try start(name, arguments, environment: environment).finish(stdin: stdin)
    }

    /// Runs several programs *at the same moment* (all are started before any gets its input)
    /// and waits for all: how two terminals or a daemon beside the shell meet on one data directory.
    public static func runTogether(_ runs: [(name: String, arguments: [String], stdin: String)],
                                   environment: [String: String] = [:]) throws -> [Result] {
        let started = try runs.map { try start($0.name, $0.arguments, environment: environment) }
        // Every input is written before anyone is waited for (it fits the pipe), so no program
        // waits for input that would only come after another one ended.
        for (program, run) in zip(started, runs) {
            program.write(run.stdin)
            program.closeInput()
        }
        return started.map { $0.finish() }
    }

    /// A started program: write to its input, read what it printed, kill it, or wait for it.
    public final class Running: @unchecked Sendable {
        public let process: Process
        let input = Pipe(), output = Pipe(), error = Pipe()
        private let lock = NSLock()
        private var outData = Data(), errData = Data()
        private let done = DispatchGroup()

        init(process: Process) throws {
            // A program that ends before reading all its input must not take the test run with it.
            signal(SIGPIPE, SIG_IGN)
            self.process = process
            process.standardInput = input
            process.standardOutput = output
            process.standardError = error
            try process.run()
            // Read both pipes as the program writes, so a chatty program never blocks on a full pipe.
            for (pipe, isOut) in [(output, true), (error, false)] {
                done.enter()
                Thread.detachNewThread { [self] in
                    while true {
                        let chunk = pipe.fileHandleForReading.availableData
                        if chunk.isEmpty { break }
                        lock.withLock { if isOut { outData.append(chunk) } else { errData.append(chunk) } }
                    }
                    done.leave()
                }
            }
        }

        /// What it printed on standard output so far.
        public var out: String { lock.withLock { String(decoding: outData, as: UTF8.self) } }

        /// Writes to its input; a program that already ended (and closed its input) is not an error here.
        public func write(_ text: String) {
            try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        }

        /// Waits until its output contains `text` (true), or `timeout` passes (false).
        public func waitForOutput(_ text: String, timeout: TimeInterval = 30) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if out.contains(text) { return true }
                if !process.isRunning { return out.contains(text) }
                usleep(5_000)
            }
            return false
        }

        /// SIGKILL: no clean-up at all, as when the power goes or the system kills it.
        public func kill9() {
            kill(process.processIdentifier, SIGKILL)
        }

        /// Ends its input (the program reads end-of-file).
        public func closeInput() {
            try? input.fileHandleForWriting.close()
        }

        /// Writes `stdin`, closes the input and waits for the end.
        @discardableResult
        public func finish(stdin: String = "") -> Result {
            if !stdin.isEmpty { write(stdin) }
            try? input.fileHandleForWriting.close()
            done.wait()
            process.waitUntilExit()
            return lock.withLock {
                Result(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                       err: String(decoding: errData, as: UTF8.self))
            }
        }
    }

    /// Starts `name` with arguments; its input stays open until ``Running/finish(stdin:)``.
    public static func start(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(name))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["LANG"] = "C.UTF-8"
        env.removeValue(forKey: "LC_ALL")
        env.removeValue(forKey: "UNITI_HOME")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        return try Running(process: process)
    }
}

/// The repository the tests were built from: its data files are read from here (the programs
/// carry their own copies compiled in).
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of a bundled questionnaire (`Configurations/Resources/Questionnaires/<name>.json`).
    public static func questionnaire(_ name: String) -> String {
        root.appendingPathComponent("Configurations/Resources/Questionnaires/\(name).json").path
    }
}

/// A temporary data directory, removed when the test is done.
public final class TemporaryDataDirectory: @unchecked Sendable {
    public let path: String

    public init() {
        path = NSTemporaryDirectory() + "uniti-e2e-\(UUID().uuidString)"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The kind of build under test, and the programs it has.
public enum Builds {
    /// Whether the binaries under test are the integrated build (the test bundle is compiled
    /// with the same trait as them).
    public static var isIntegrated: Bool { Launcher.compiledKind == .integrated }
    /// Every standalone program, from the one list of modules.
    public static let standalonePrograms = ModuleCatalog.all.map(\.programName)
}

/// A database read (or shaped) the way a person or a coordinator could: with the `sqlite3` shell.
public enum SQLiteShell {
    /// Rows of `sql` on the database at `path`, one string per row, columns separated by `|`;
    /// throws with sqlite3's message when it fails.
    @discardableResult
    public static func query(_ path: String, _ sql: String) throws -> [String] {
        let result = try Program.run("/usr/bin/sqlite3", [path, sql])
        guard result.status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: ["reason": result.err]) }
        return result.out.split(separator: "\n").map(String.init)
    }
}
