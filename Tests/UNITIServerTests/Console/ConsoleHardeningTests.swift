import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOPosix
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Issue 44, "looked fragile": the console's answer to a form over its limit, forwarded headers
/// from a peer that is no proxy, mail subjects outside ASCII, the SMTP sender's thread.
@Suite("Console and server hardening", .timeLimit(.minutes(10)))
struct ConsoleHardeningTests {
    @Test("a console form over the form limit is answered with the console's HTML page and headers, naming the limit a person can act on (64 kB), not the API's JSON")
    func oversizedForm() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let (browser, _) = try await fixture.alphaEditor(client)
            let page = "/console/studies/alpha/questionnaires"
            let token = try #require(PortalBrowser.csrf(in: try await browser.get(page).text))
            let response = try await browser.post(page, ["csrf": token, "definition": String(repeating: "x", count: 70 * 1024)])
            #expect(response.status == .contentTooLarge)
            #expect(response.headers[.contentType]?.hasPrefix("text/html") == true, "\(response.headers)")
            #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.text.contains("larger than the 64 kB the console accepts") && !response.text.contains("1048576")
                    && !response.text.hasPrefix("{"), "\(response.text)")
            #expect(response.text.contains(#"class="console""#), "the console's page")
        }
    }

    @Test("X-Forwarded-Proto is believed from a trusted proxy only: from any other peer a session cookie is not made Secure on its word")
    func forwardedProtoFromTrustedProxyOnly() async throws {
        let server = try TestServer()
        for (proxies, secure) in [(TrustedProxies.loopback, true), (.none, false)] {
            var environment = server.environment
            environment.trustedProxies = proxies
            try await runLive(environment) { client in
                let browser = PortalBrowser(client)
                if secure { try await server.portalAccount(browser, "anna") }
                browser.extraHeaders[HTTPField.Name("X-Forwarded-Proto")!] = "https"
                let login = try await server.portalLogin(browser, "anna")
                let cookie = try #require(login.headers[values: .setCookie].first { $0.hasPrefix("uniti_session=") })
                #expect(cookie.contains("Secure") == secure, "\(proxies.loopback ? "from the trusted loopback proxy" : "from a peer that is no proxy"): \(cookie)")
            }
        }
        let untrusted = try #require(ClientAddress("203.0.113.9"))
        #expect(TrustedProxies.loopback.overTLS(peer: untrusted, forwardedProto: "https") == false)
        #expect(TrustedProxies.loopback.overTLS(peer: ClientAddress("127.0.0.1"), forwardedProto: "http, https") == true)
        #expect(TrustedProxies.loopback.overTLS(peer: nil, forwardedProto: "https") == false, "in-process: no peer")
    }

    @Test("a German mail subject goes out as RFC 2047 encoded words (ASCII only, lines within 76 characters) and reads back as written; ASCII subjects stay as they are")
    func encodedSubjects() async throws {
        let german = "UNITI: Passwort zurücksetzen"
        let message = OutgoingMail(to: "anna@example.org", subject: german, body: "Hallo\n").rfc5322(from: "UNITI <no-reply@uniti.invalid>", date: Date(), messageId: "x")
        let head = try #require(message.components(separatedBy: "\r\n\r\n").first)
        #expect(head.unicodeScalars.allSatisfy { $0.isASCII }, "\(head)")
        let longest = head.components(separatedBy: "\r\n").map(\.count).max() ?? 0
        #expect(longest <= 76, "\(head)")
        #expect(head.contains("Subject: =?UTF-8?B?"))
        #expect(MailHeader.value("Subject", in: message) == german)
        #expect(MailHeader.encoded("UNITI: activate") == "UNITI: activate")
        #expect(MailHeader.decoded("=?utf-8?q?Gr=C3=BC=C3=9Fe_aus?= =?UTF-8?B?VWxt?=") == "Grüße ausUlm")
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aäöüßé€漢字 ,;:\"'=?_\r\n\tz")
        for _ in 0..<200 {
            let subject = String((0..<Int.random(in: 1...120, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let encoded = MailHeader.encoded(subject)
            #expect(encoded.unicodeScalars.allSatisfy { $0.isASCII } && !encoded.contains("\n\n"))
            #expect(MailHeader.value("Subject", in: "Subject: \(encoded)\r\n\r\nbody") == subject || !subject.unicodeScalars.contains { !$0.isASCII || $0.value < 0x20 },
                    "\(subject.debugDescription)")
        }

        // A German participant's reset mail, as the server sends it.
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.json(.post, "/api/v1/account/register",
                                      body: RegisterRequest(username: "anke", email: "anke@example.org", password: "correct horse", language: "de"))
            _ = try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "anke@example.org"))
        }
        let mails = try await server.mails(to: "anke@example.org", subject: "Passwort zurücksetzen")
        #expect(mails.count == 1)
        #expect(mails.allSatisfy { ($0.components(separatedBy: "\r\n\r\n").first ?? "").unicodeScalars.allSatisfy { $0.isASCII } })
    }

    /// An SMTP server that takes each connection and says nothing for `seconds` before its
    /// greeting; it ends by itself after `count` deliveries (or three minutes), since a process the
    /// test starts may not take SIGTERM.
    static let stallingReceiver = #"""
    import os, socket, sys, threading, time
    seconds, count = float(sys.argv[1]), int(sys.argv[2])
    threading.Timer(180, lambda: os._exit(1)).start()
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0)); server.listen(64)
    print(server.getsockname()[1], flush=True)
    done = threading.Semaphore(0)
    def serve(connection):
        time.sleep(seconds)
        stream = connection.makefile("rb")
        def reply(text): connection.sendall((text + "\r\n").encode())
        reply("220 slow")
        while True:
            line = stream.readline()
            if not line: break
            command = line.decode(errors="replace").strip().upper()
            if command.startswith("DATA"):
                reply("354 go ahead")
                while stream.readline() not in (b".\r\n", b""): pass
                reply("250 stored")
            elif command.startswith("QUIT"): reply("221 bye"); break
            else: reply("250 ok")
        connection.close()
        done.release()
    def accept():
        while True:
            connection, _ = server.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    for _ in range(count): done.acquire()
    os._exit(0)
    """#

    @Test("while SMTP deliveries wait on a slow mail server, Swift's shared pool keeps running other work (the sender blocks on NIO's thread pool)")
    func smtpDoesNotBlockTheSharedPool() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("receiver.py")
        try Data(Self.stallingReceiver.utf8).write(to: script)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // More deliveries at once than Swift's shared pool has threads.
        let deliveries = ProcessInfo.processInfo.activeProcessorCount + 2
        let stall = 8
        process.arguments = ["python3", script.path, "\(stall)", "\(deliveries)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let port = try #require(Int(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        // A pool of its own with a thread per delivery, so that other tests' blocking work on the
        // shared NIOThreadPool does not make the deliveries wait (the server sends one at a time).
        let pool = NIOThreadPool(numberOfThreads: deliveries)
        pool.start()
        let mailer = try SMTPMailer(url: "smtp://127.0.0.1:\(port)", sender: "server@example.org", pool: pool)
        let sending = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<deliveries {
                    group.addTask { try await mailer.send(OutgoingMail(to: "p\(index)@example.org", subject: "hello", body: "hi\n")) }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        let answered = await withTaskGroup(of: Int.self) { group in
            for value in 0..<8 { group.addTask { value } }
            return await group.reduce(0, +)
        }
        let waited = ContinuousClock.now - start
        #expect(answered == 28)
        // Blocked, the pool would free a thread only when a delivery ends, 7.5 s from here; half of
        // that leaves room for the load of other tests running beside this one.
        #expect(waited < .seconds(stall / 2), "other work waited \(waited) while mail was sent")
        try await sending.value
        process.waitUntilExit()
        try await pool.shutdownGracefully()
    }
}

@Suite("Console: one table of pages decides every role question", .timeLimit(.minutes(10)))
struct ConsolePageTableTests {
    @Test("the router's console routes are exactly the table's pages, each behind the gate its access names")
    func routerIsTheTable() throws {
        let server = try TestServer()
        let routes = Set(ConsolePipelineTests.routes(server.environment).map(\.name))
        let table = Set(ConsolePage.all.map {
            "\($0.method) /console\($0.path.isEmpty ? "" : "/" + $0.path)".replacing(#/:([a-z]+)/#) { "{\($0.1)}" }
        })
        #expect(routes == table, "router only: \(routes.subtracting(table)); table only: \(table.subtracting(routes))")
        #expect(Set(ConsolePage.all.map(\.name)).count == ConsolePage.all.count, "names are unique")
        #expect(ConsolePage.tabs.map(\.tab) == ["overview", "participants", "alerts", "trial", "settings", "questionnaires", "consent", "data", "team", "audit"])
    }

    @Test("for each role, the tabs shown, the export form, the decision buttons and the create-study form are what the table allows, and the pages behind them open")
    func roleDecisionsFollowTheTable() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await fixture.study("alpha")
            let pending = try await fixture.store.createUser(username: "pat", email: "pat@example.org", passwordHash: "x", language: "en",
                                                             pseudonym: "p-000000000001", now: fixture.clock.now())
            try await fixture.store.setMembership(studyId: "alpha", userId: pending, status: .pending, now: fixture.clock.now())
            let admin = try await fixture.enrolledStaff("ada", admin: true)
            for (name, role) in [("vic", StudyRole.viewer), ("ed", .editor), ("olga", .owner), ("ada", nil)] {
                let login = role == nil ? admin : try await fixture.enrolledStaff(name)
                if let role { try await fixture.role(role, login, "alpha") }
                let effective = role ?? .owner
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, login)
                let overview = try await browser.get("/console/studies/alpha").text
                let shown = overview.matches(of: #/id="tab-([a-z]+)"/#).map { String($0.1) }
                #expect(shown == ConsolePage.tabs.filter { $0.allows(effective) }.compactMap(\.tab), "\(name)")
                for tab in ConsolePage.tabs {
                    #expect(try await browser.get(tab.uri(study: "alpha")).status == (tab.allows(effective) ? .ok : .forbidden), "\(name): \(tab.name)")
                }
                #expect(try await browser.get("/console/studies/alpha/data").text.contains(#"id="export""#) == ConsolePage.export.allows(effective))
                #expect(try await browser.get("/console/studies/alpha/participants").text.contains(#"value="approve""#)
                        == ConsolePage.decideRequest.allows(effective), "\(name)")
                let member = try #require(try await fixture.store.staffMember(id: login.id))
                #expect(try await browser.get("/console").text.contains(#"id="create-study""#) == ConsolePage.createStudy.allows(member))
            }
        }
    }
}
