import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: registration and reset tell nothing and are limited", .timeLimit(.minutes(10)))
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
