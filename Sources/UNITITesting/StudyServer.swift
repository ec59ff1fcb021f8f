import Foundation

/// A real `uniti-server` on a free loopback port, with its own database and mail spool, for
/// end-to-end tests. Stopped (SIGTERM) when the value goes away.
public final class StudyServer: @unchecked Sendable {
    public let directory: String
    public let database: String
    public let spool: String
    public private(set) var url: String = ""
    private var process: Process?
    /// More `serve` options, e.g. `["--access-token-lifetime", "3"]`.
    let serveArguments: [String]
    /// The program and the arguments before `serve`: the built `uniti-server`, or e.g. an
    /// installed one started through a wrapper.
    let command: [String]

    /// - Parameters:
    ///   - database: where the server keeps its data (`--database`): a SQLite file in its
    ///     directory by default, or a `postgres://` URL (``PostgresCluster/createDatabase()``).
    ///   - command: the program to run with its first arguments (`serve` and its options follow).
    public init(serveArguments: [String] = [], database: String? = nil, command: [String] = [Program.path("uniti-server")]) throws {
        self.serveArguments = serveArguments
        self.command = command
        directory = NSTemporaryDirectory() + "uniti-server-\(UUID().uuidString)"
        self.database = database ?? directory + "/server.sqlite"
        spool = directory + "/mail"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        try start()
    }

    /// Starts the server (again, after `stop`) and waits until it listens.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = command.dropFirst() + ["serve", "--host", "127.0.0.1", "--port", url.isEmpty ? "0" : port,
                             "--database", database, "--mail-spool", spool, "--bcrypt-cost", "4"] + serveArguments
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

    public var port: String { String(url.split(separator: ":").last ?? "0") }

    /// Stops the server gracefully and waits for it.
    public func stop() {
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
    public func coordinator(_ arguments: [String]) throws -> Program.Result {
        try Program.run("uniti-server", arguments + ["--database", database])
    }

    /// Creates a running study (public by default) enabling `modules` and imports bundled
    /// questionnaires (file names under `Configurations/Resources/Questionnaires`, without
    /// `.json`) into it.
    public func createStudy(_ id: String, modules: String, questionnaires: [String], access: String = "public") throws {
        let created = try coordinator(["study", "create", id, "--title", id, "--access", access, "--modules", modules, "--running"])
        guard created.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["reason": created.err]) }
        for name in questionnaires {
            let definition = Repository.questionnaire(name)
            let imported = try coordinator(["questionnaire", "import", definition, "--study", id])
            guard imported.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["reason": imported.err]) }
        }
    }

    /// Rows of a query on the server's database (through the sqlite3 shell, as a coordinator
    /// could read it), one string per row with columns separated by `|`.
    public func query(_ sql: String) throws -> [String] {
        guard database.hasPrefix("postgres"), let name = URLComponents(string: database)?.path.dropFirst() else {
            return try SQLiteShell.query(database, sql)
        }
        return try PostgresCluster.shared().query(sql, database: String(name))
    }

    /// Answer sheets of a questionnaire the server holds.
    public func sheets(of questionnaireID: String) throws -> Int {
        Int(try query("SELECT COUNT(*) FROM answer_sheets WHERE questionnaire_id = '\(questionnaireID)'").first ?? "") ?? -1
    }

    /// The stored values of one item label over all sheets.
    public func answers(label: String) throws -> [String] {
        try query("SELECT value FROM answers WHERE label = '\(label)' ORDER BY sheet_id")
    }

    /// The newest code mailed to `address` (other than `previous`, when a second code is
    /// awaited). The server sends mail just after it answers, so this waits for it up to 20 s.
    public func mailedCode(to address: String, otherThan previous: String? = nil) throws -> String? {
        let deadline = Date().addingTimeInterval(20)
        while true {
            if let code = try newestCode(to: address), code != previous { return code }
            guard Date() < deadline else { return nil }
            usleep(50_000)
        }
    }

    private func newestCode(to address: String) throws -> String? {
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
