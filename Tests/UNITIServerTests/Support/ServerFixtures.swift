import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

// Fixtures of the security suites: the server in-process or on a loopback socket, its mails,
// a mailer that holds deliveries.

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

/// The repository's root (the folder of `Package.swift`), for tests that read its sources and
/// shipped files.
let repositoryRoot: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path), folder.path != "/" {
        folder = folder.deletingLastPathComponent()
    }
    return folder
}()
