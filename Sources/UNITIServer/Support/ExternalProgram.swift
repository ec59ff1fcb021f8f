import Foundation

/// A program the server runs for an operator's command (PostgreSQL's `pg_dump` and
/// `pg_restore`), found on `PATH` or in a folder the operator names, and run to its end with its
/// output collected.
struct ExternalProgram: Sendable {
    let path: String

    /// What a run printed and how it ended.
    struct Outcome: Sendable {
        let status: Int32
        /// Standard output and error together, as the program wrote them.
        let output: String
        var succeeded: Bool { status == 0 }
        /// The last line the program printed (its error, when it failed), for a one-line message.
        var lastLine: String {
            output.split(whereSeparator: \.isNewline).last.map(String.init) ?? "(no output)"
        }
    }

    /// `name` in `folder` when given, else the first on `PATH`; nil when there is none.
    static func find(_ name: String, in folder: String?, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> ExternalProgram? {
        let folders = folder.map { [$0] } ?? (path ?? "").split(separator: ":").map(String.init)
        return folders.map { ($0 as NSString).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
            .map(ExternalProgram.init(path:))
    }

    /// Runs the program with `arguments` and `environment` added to this process's, to its end,
    /// in `directory` (else this process's). Output goes to a pipe read to its end before
    /// waiting, so a long listing cannot fill the pipe and stall the program. Blocks the calling
    /// thread: an operator's command runs one program at a time and has nothing else to do
    /// meanwhile.
    func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
