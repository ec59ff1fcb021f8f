import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: server files are private", .timeLimit(.minutes(10)))
struct FileModeTests {
    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Starts the real server under umask 022 (as a login shell usually has), its log in `log`.
    static func start(database: String, spool: String, log: URL) throws -> (process: Process, port: Int) {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"umask 022; exec "$0" "$@""#, try ServerBinaryTests.binary().path,
                             "serve", "--port", "0", "--database", database, "--mail-spool", spool, "--bcrypt-cost", "4"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        var buffer = ""
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += String(decoding: chunk, as: UTF8.self)
            if let range = buffer.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                return (process, Int(buffer[range].split(separator: ":").last!)!)
            }
        }
        throw TestFailure("server did not report its port: \(buffer)")
    }

    static func stop(_ process: Process) {
        process.terminate()
        process.waitUntilExit()
    }

    @Test("under umask 022 the database with its -wal and -shm, the spool and an export are 0600 in 0700 folders")
    func privateModes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let database = root.appendingPathComponent("data/server.sqlite").path
        let spool = root.appendingPathComponent("spool").path
        let (process, port) = try Self.start(database: database, spool: spool, log: root.appendingPathComponent("log"))
        defer { if process.isRunning { Self.stop(process) } }
        let register = try JSONEncoder().encode(RegisterRequest(username: "mona", email: "mona@example.org", password: "correct horse"))
        let (status, _) = try await ServerBinaryTests.request("POST", "http://127.0.0.1:\(port)/api/v1/account/register", body: register)
        #expect(status == 201)
        var mails: [String] = []
        for _ in 0..<200 where mails.isEmpty {
            mails = ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).filter { $0.hasSuffix(".eml") }
            if mails.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(mails.count == 1)
        for file in [database, database + "-wal", database + "-shm"] + mails.map({ spool + "/" + $0 }) {
            #expect(try Self.mode(file) == 0o600, "\(file)")
        }
        #expect(try Self.mode(root.appendingPathComponent("data").path) == 0o700)
        #expect(try Self.mode(spool) == 0o700)
        Self.stop(process)

        try await runServerCommand(["study", "create", "open", "--title", "Open", "--database", database])
        let out = root.appendingPathComponent("exports/open").path
        let export = Process()
        export.executableURL = URL(fileURLWithPath: "/bin/sh")
        export.arguments = ["-c", #"umask 022; exec "$0" "$@""#, try ServerBinaryTests.binary().path,
                            "export", "--study", "open", "--format", "csv", "--out", out, "--database", database]
        export.standardOutput = FileHandle.nullDevice
        try export.run()
        export.waitUntilExit()
        #expect(export.terminationStatus == 0)
        #expect(try Self.mode(out) == 0o700)
        #expect(try Self.mode(out + "/open-answers.csv") == 0o600)
    }

    @Test("at start the server warns, one line per file, about a database or spool file others can read")
    func warnsAboutReadableFiles() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let database = root.appendingPathComponent("server.sqlite").path
        let spool = root.appendingPathComponent("spool").path
        _ = try ServerStore(sqlitePath: database)
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let mail = spool + "/0000000000001-old.eml"
        _ = FileManager.default.createFile(atPath: mail, contents: Data("To: a@example.org\r\n".utf8))
        for file in [database, mail] { try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file) }
        let log = root.appendingPathComponent("log")
        let (process, _) = try Self.start(database: database, spool: spool, log: log)
        Self.stop(process)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.contains(database + " ") && $0.contains("warning") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains(mail + " ") && $0.contains("warning") }.count == 1, "\(lines)")
        #expect(try Self.mode(database) == 0o644, "a warning, not a change behind the operator's back")
    }
}

// MARK: 8. Smaller gaps
