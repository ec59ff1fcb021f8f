import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
@testable import UNITIServer

/// A log that keeps its lines, to check what the server writes about failures.
final class CapturedLog: Sendable {
    let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}

/// A mailer that fails the first `failures` tries of each message, then keeps it.
final class FlakyMailer: Mailer, Sendable {
    let failures: Int
    private let state = Mutex<(tries: [String: Int], sent: [OutgoingMail])>(([:], []))

    init(failures: Int) { self.failures = failures }

    var sent: [OutgoingMail] { state.withLock { $0.sent } }

    func tries(of subject: String) -> Int { state.withLock { $0.tries[subject] ?? 0 } }

    func send(_ mail: OutgoingMail) async throws {
        let fail = state.withLock { state in
            state.tries[mail.subject, default: 0] += 1
            if state.tries[mail.subject]! > failures {
                state.sent.append(mail)
                return false
            }
            return true
        }
        if fail { throw SMTPError("SMTP delivery to \(mail.to) failed: connection refused") }
    }
}

/// Runs `queue` in a service group while `body` runs, then shuts it down gracefully (as SIGTERM
/// does) and waits for it to drain.
func withRunning(_ queue: MailQueue, _ body: () async throws -> Void) async throws {
    let group = ServiceGroup(configuration: .init(services: [queue], logger: Logger(label: "test")))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            try await body()
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

@Suite("Mail queue", .timeLimit(.minutes(10)))
struct MailQueueTests {
    static let secret = "  code-7f3k2m"

    static func mail(_ subject: String) -> OutgoingMail {
        OutgoingMail(to: "ina@example.org", subject: subject, body: "Your code:\n\n\(secret)\n")
    }

    @Test("a failed delivery is tried again after a delay; the failures are logged with the recipient, never the message")
    func retriesAndLogsWithoutCode() async throws {
        let mailer = FlakyMailer(failures: 2)
        let log = CapturedLog()
        let queue = MailQueue(mailer: mailer, retryDelays: [.milliseconds(20), .milliseconds(20), .milliseconds(20)], logger: log.logger)
        try await withRunning(queue) {
            queue.enqueue(Self.mail("reset"))
            queue.enqueue { [Self.mail("made by a job")] }
            await queue.idle()
        }
        #expect(mailer.sent.map(\.subject).sorted() == ["made by a job", "reset"])
        #expect(mailer.tries(of: "reset") == 3)
        let lines = log.lines.withLock { $0 }
        #expect(lines.filter { $0.hasPrefix("warning") && $0.contains("ina@example.org") && $0.contains("connection refused") }.count == 4)
        #expect(!lines.contains { $0.contains(Self.secret.trimmingCharacters(in: .whitespaces)) || $0.contains("reset") })
    }

    @Test("after the last retry a message is given up and logged as an error; a failing job is logged and sends nothing")
    func givesUp() async throws {
        let mailer = FlakyMailer(failures: 10)
        let log = CapturedLog()
        let queue = MailQueue(mailer: mailer, retryDelays: [.milliseconds(10)], logger: log.logger)
        struct Broken: Error {}
        try await withRunning(queue) {
            queue.enqueue(Self.mail("reset"))
            queue.enqueue { throw Broken() }
            await queue.idle()
        }
        #expect(mailer.tries(of: "reset") == 2)
        #expect(mailer.sent.isEmpty)
        let errors = log.lines.withLock { $0 }.filter { $0.hasPrefix("error") }
        #expect(errors.contains { $0.contains("ina@example.org") && $0.contains("after 2 tries") })
        #expect(errors.contains { $0.contains("not prepared") })
    }

    @Test("a graceful shutdown sends what is queued and gives a message waiting for its retry one last try at once")
    func shutdownDrains() async throws {
        let mailer = FlakyMailer(failures: 1)
        let queue = MailQueue(mailer: mailer, retryDelays: [.seconds(3600)], logger: CapturedLog().logger)
        let started = ContinuousClock.now
        try await withRunning(queue) {
            queue.enqueue(Self.mail("waits an hour for its retry"))
            while mailer.tries(of: "waits an hour for its retry") == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(mailer.sent.map(\.subject) == ["waits an hour for its retry"])
        #expect(ContinuousClock.now - started < .seconds(600), "the shutdown did not wait for the hour")
    }
}
