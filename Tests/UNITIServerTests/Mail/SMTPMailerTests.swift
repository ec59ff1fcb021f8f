import Foundation
import Testing
@testable import UNITIServer

@Suite("SMTP mail", .timeLimit(.minutes(10)))
struct SMTPMailerTests {
    /// A minimal SMTP receiver (Python, standard library only) that stores the DATA it gets.
    static let receiver = #"""
    import socket, sys
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0)); server.listen(1)
    print(server.getsockname()[1], flush=True)
    connection, _ = server.accept(); stream = connection.makefile("rb"); out = open(sys.argv[1], "wb")
    def reply(text): connection.sendall((text + "\r\n").encode())
    reply("220 test ready")
    while True:
        line = stream.readline()
        if not line: break
        command = line.decode(errors="replace").strip().upper()
        if command.startswith("EHLO") or command.startswith("HELO"): reply("250 test")
        elif command.startswith("DATA"):
            reply("354 go ahead")
            while True:
                data = stream.readline()
                if data in (b".\r\n", b".\n", b""): break
                out.write(data)
            out.flush(); reply("250 stored")
        elif command.startswith("QUIT"): reply("221 bye"); break
        else: reply("250 ok")
    """#

    @Test("a message sent with --smtp-url reaches the SMTP server with its headers and body")
    func sendsThroughSMTP() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("receiver.py")
        let received = directory.appendingPathComponent("received.eml")
        try Data(Self.receiver.utf8).write(to: script)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, received.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let portLine = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(Int(portLine.trimmingCharacters(in: .whitespacesAndNewlines)))

        let mailer = try SMTPMailer(url: "smtp://127.0.0.1:\(port)", sender: "server@example.org")
        try await mailer.send(OutgoingMail(to: "anna@example.org", subject: "UNITI: activate", body: "code 1234\n"))
        process.waitUntilExit()
        let text = try String(contentsOf: received, encoding: .utf8)
        #expect(text.contains("To: anna@example.org"))
        #expect(text.contains("Subject: UNITI: activate"))
        #expect(text.contains("code 1234"))
    }

    @Test("an unusable SMTP address is refused at start, not when the first mail is due")
    func rejectsBadURL() {
        #expect(throws: SMTPError.self) { try SMTPMailer(url: "http://mail.example.org", sender: "a@b.org") }
    }
}
