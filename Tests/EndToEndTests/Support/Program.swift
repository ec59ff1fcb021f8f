import Foundation
import UNITICore

/// Runs the real binaries built next to the test bundle, in a temporary data directory.
struct Program {
    /// The folder with the built products (`.build/debug` or `.build-standalone/debug`), or
    /// `$UNITI_BIN_DIR` when set.
    static let binDirectory: URL = {
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

    static func path(_ name: String) -> String {
        binDirectory.appendingPathComponent(name).path
    }

    struct Result {
        let status: Int32
        let out: String
        let err: String
    }

    /// Runs `name` with arguments, feeding `stdin`, and waits for it.
    @discardableResult
    static func run(_ name: String, _ arguments: [String], stdin: String = "",
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
final class TemporaryDataDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "uniti-e2e-\(UUID().uuidString)"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The host program of the build under test, and a standalone one.
enum Builds {
    static var isIntegrated: Bool { BuildKind.current == .integrated }
    static let standalonePrograms = [
        "track-your-tinnitus", "track-your-stress", "track-your-hearing", "tinnitus-navigator", "shades-of-noise",
    ]
}
