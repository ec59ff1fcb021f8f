import Foundation

/// A real `uniti-server` on a free loopback port, with its own database and mail spool, for
/// end-to-end tests. Stopped (SIGTERM) when the value goes away.
final class StudyServer {
    let directory: String
    let database: String
    let spool: String
    private(set) var url: String = ""
    private var process: Process?

    init() throws {
        directory = NSTemporaryDirectory() + "uniti-server-\(UUID().uuidString)"
        database = directory + "/server.sqlite"
        spool = directory + "/mail"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        try start()
    }

    /// Starts the server (again, after `stop`) and waits until it listens.
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Program.path("uniti-server"))
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", url.isEmpty ? "0" : port,
                             "--database", database, "--mail-spool", spool, "--bcrypt-cost", "4"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // The first line says where it listens: "uniti-server listening on http://127.0.0.1:PORT".
        var seen = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
            let text = String(decoding: seen, as: UTF8.self)
            if let range = text.range(of: "listening on ") {
                let rest = text[range.upperBound...]
                if let end = rest.firstIndex(of: "\n") {
                    url = String(rest[..<end])
                    return
                }
            }
        }
        throw CocoaError(.fileReadUnknown)
    }

    var port: String { String(url.split(separator: ":").last ?? "0") }

    /// Stops the server gracefully and waits for it.
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()  // graceful: the server finishes what it acknowledged
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
    }

    /// Runs a coordinator command on the same database, e.g. `["study", "create", "open", ...]`.
    @discardableResult
    func coordinator(_ arguments: [String]) throws -> Program.Result {
        try Program.run("uniti-server", arguments + ["--database", database])
    }

    /// The newest code of the given kind mailed to `address` ("activate" or "--token").
    func mailedCode(to address: String) throws -> String? {
        let files = try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasSuffix(".eml") }.sorted()
        for file in files.reversed() {
            let text = try String(contentsOfFile: spool + "/" + file, encoding: .utf8)
            guard text.contains(address) else { continue }
            // The body shows the code on a line of its own, indented.
            for line in text.split(separator: "\n") where line.hasPrefix("    ") {
                let code = line.trimmingCharacters(in: .whitespaces)
                if !code.isEmpty, !code.contains(" ") { return code }
            }
        }
        return nil
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
