import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: study passwords", .timeLimit(.minutes(10)))
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
