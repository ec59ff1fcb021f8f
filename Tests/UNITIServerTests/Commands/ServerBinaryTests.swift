import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Drives the real `uniti-server` binary on a free loopback port.
@Suite("uniti-server binary", .timeLimit(.minutes(10)))
struct ServerBinaryTests {
    /// The built `uniti-server` next to the test bundle.
    static func binary() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("uniti-server"),
            Bundle.main.bundleURL.appendingPathComponent("uniti-server"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("uniti-server"),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw TestFailure("uniti-server binary not found next to the tests; build it with 'swift build --product uniti-server'")
        }
        return found
    }

    /// Starts `serve --port 0` and waits for the line naming the port.
    static func start(database: String, spool: String) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["serve", "--port", "0", "--database", database, "--mail-spool", spool, "--bcrypt-cost", "4"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += String(decoding: chunk, as: UTF8.self)
            if let range = buffer.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let port = Int(buffer[range].split(separator: ":").last!)!
                return (process, port)
            }
        }
        process.terminate()
        throw TestFailure("server did not report its port: \(buffer)")
    }

    static func request(_ method: String, _ url: String, body: Data? = nil, token: String? = nil) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, data)
    }

    /// The code of the first spooled mail: the server sends mail just after it answers, so this
    /// waits for it up to 20 s.
    static func spooledCode(_ spool: String) async throws -> String? {
        for _ in 0..<400 {
            let code = try SpoolMailer(directory: URL(fileURLWithPath: spool)).messages().compactMap { message in
                try String(contentsOf: message.url, encoding: .utf8).split(whereSeparator: \.isNewline)
                    .first { $0.hasPrefix("    ") }?.trimmingCharacters(in: .whitespaces)
            }.first
            if let code { return code }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    static func runCommand(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("serves health on loopback, takes coordinator commands on the same database while running, and keeps acknowledged writes after SIGTERM")
    func realServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-server-bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("server.sqlite").path
        let spool = directory.appendingPathComponent("spool").path
        let (process, port) = try Self.start(database: database, spool: spool)
        defer { if process.isRunning { process.terminate() } }
        let base = "http://127.0.0.1:\(port)"

        let (healthStatus, healthBody) = try await Self.request("GET", base + "/health")
        #expect(healthStatus == 200)
        #expect(String(decoding: healthBody, as: UTF8.self).contains("ok"))

        // A coordinator command on the same file while the server runs.
        let (created, createOutput) = try Self.runCommand(["study", "create", "live", "--title", "Live study", "--modules", "tyt,son", "--database", database])
        #expect(created == 0, "\(createOutput)")

        let register = try JSONEncoder().encode(RegisterRequest(username: "vera", email: "vera@example.org", password: "verapassword"))
        let (registered, _) = try await Self.request("POST", base + "/api/v1/account/register", body: register)
        #expect(registered == 201)
        #expect(try await Self.spooledCode(spool) != nil)
        let (listed, mailList) = try Self.runCommand(["mail", "list", "--mail-spool", spool])
        #expect(listed == 0)
        #expect(mailList.contains("vera@example.org"))

        process.terminate() // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let store = try ServerStore(sqlitePath: database)
        #expect(try await store.user(login: "vera") != nil)
        #expect(try await store.study(id: "live")?.modules == [.tyt, .son])
    }

    @Test("users list shows one page of accounts and says where the next begins")
    func usersListPaged() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-server-users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("server.sqlite").path
        let store = try ServerStore(sqlitePath: database)
        for name in ["ada", "bo", "cy"] {
            _ = try await store.createUser(username: name, email: "\(name)@example.org", passwordHash: "x", language: "en",
                                           pseudonym: "p-\(name)", now: Date())
        }
        let (status, first) = try Self.runCommand(["users", "list", "--limit", "2", "--database", database])
        #expect(status == 0, "\(first)")
        #expect(first.contains("ada@example.org") && first.contains("bo@example.org") && !first.contains("cy@example.org"))
        #expect(first.contains("Accounts 1–2 of 3; --offset 2 for the next."))
        let (_, last) = try Self.runCommand(["users", "list", "--limit", "2", "--offset", "2", "--database", database])
        #expect(last.contains("cy@example.org") && !last.contains("ada@example.org"))
        #expect(last.contains("Accounts 3–3 of 3."))
        let (_, whole) = try Self.runCommand(["users", "list", "--database", database])
        #expect(whole.contains("cy@example.org") && !whole.contains("Accounts"))
        let (refused, message) = try Self.runCommand(["users", "list", "--limit", "0", "--database", database])
        #expect(refused != 0 && message.contains("--limit must be between 1 and 10000."))
    }
}
