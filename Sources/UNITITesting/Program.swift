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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(name))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["LANG"] = "C.UTF-8"
        env.removeValue(forKey: "LC_ALL")
        env.removeValue(forKey: "UNITI_HOME")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        // Read both pipes fully before waiting, so a chatty program cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = error.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      out: String(decoding: outData, as: UTF8.self),
                      err: String(decoding: errData, as: UTF8.self))
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
