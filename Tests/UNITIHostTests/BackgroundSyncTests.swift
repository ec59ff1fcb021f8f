import Foundation
import Testing
import UNITICore
import UNITIProtocol
import UNITITesting
@testable import UNITIHost

/// What the shell does while its prompt waits: it tries the outbox again when the shared
/// ``SyncSchedule`` says so, on the harness's fixed clock. The server is a loopback port nobody
/// listens on (refused at once, as a machine without network answers); the end-to-end test in
/// `InteractiveShellTests` brings a real server back.
@Suite("Background sync at the prompt", .serialized, .timeLimit(.minutes(10)))
struct BackgroundSyncTests {
    /// A logged-in data directory whose server cannot be reached, with one record waiting.
    static func offline() throws -> ModuleHarness {
        let harness = try ModuleHarness([])
        try harness.services.sessions.setServer("http://127.0.0.1:1")
        let tokens = SessionTokens(accessToken: "access", refreshToken: "refresh", expiresAt: "2099-01-01T00:00:00Z",
                                   refreshExpiresAt: "2099-01-01T00:00:00Z", expiresIn: 3600)
        try harness.services.sessions.save(Session(username: "eve", tokens: tokens, obtainedAt: harness.clock.now))
        let record = ModuleRecordUpsert(moduleId: "tyt", clientId: "note:1",
                                        updatedAt: OffsetTimestamp.utcMilliseconds(harness.clock.now), deleted: true)
        let payload = try APIClient.encoder.encode(record)
        try harness.database.writer.write { db in
            try Outbox.enqueue(db, kind: "record", moduleID: "tyt", clientID: "tyt/note:1", payload: payload, at: harness.clock.now)
        }
        return harness
    }

    /// One idle second at the prompt: the shell's check, and the sync it may have started.
    static func idle(_ harness: ModuleHarness) throws -> SyncSchedule {
        harness.shell.retrySyncIfDue()
        harness.shell.waitForBackgroundSync()
        return try SyncSchedule.read(from: harness.database)
    }

    @Test("at the prompt the shell tries what waits when the schedule is due and not before; each failed try moves the next one further off")
    func triesOnTheSchedule() throws {
        let harness = try Self.offline()
        let first = try Self.idle(harness)
        #expect(first.failures == 1)
        #expect(first.lastAttempt?.date == harness.clock.now)
        let next = try #require(first.nextAttempt?.date)
        #expect(next.timeIntervalSince(harness.clock.now) >= 15 && next.timeIntervalSince(harness.clock.now) <= 30)

        // Idle seconds before it is due try nothing.
        harness.clock.advance(by: next.timeIntervalSince(harness.clock.now) - 1)
        #expect(try Self.idle(harness) == first)

        harness.clock.advance(by: 1)
        let second = try Self.idle(harness)
        #expect(second.failures == 2)
        #expect(second.lastAttempt?.date == harness.clock.now)
        let wait = try #require(second.nextAttempt?.date).timeIntervalSince(harness.clock.now)
        #expect(wait >= 30 && wait <= 60)
        #expect(try harness.services.outbox.count(.pending) == 1, "nothing is lost")
    }

    @Test("with nothing waiting to be sent the prompt tries nothing")
    func nothingWaiting() throws {
        let harness = try Self.offline()
        try harness.database.writer.write { db in try db.execute(sql: "DELETE FROM core_outbox") }
        #expect(try Self.idle(harness) == SyncSchedule())
    }

    @Test("the prompt's try sends entries whose own backoff has grown longer than the schedule's")
    func retriesEntriesOnTheirOwnBackoff() throws {
        let harness = try Self.offline()
        let outbox = harness.services.outbox
        var random = RandomSourceGenerator(source: harness.random)
        for _ in 0..<12 {
            try outbox.recordFailure(try outbox.due(at: .distantFuture), error: "earlier", at: harness.clock.now, using: &random)
        }
        #expect(try outbox.due(at: harness.clock.now.addingTimeInterval(15 * 60)).isEmpty, "the entry waits for its own backoff")
        #expect(try Self.idle(harness).failures == 1)
        let entry = try #require(try outbox.due(at: .distantFuture).first)
        #expect(entry.attempts == 13, "the entry was tried")
        #expect(entry.lastError != "earlier")
    }

    @Test("sync --status tells when it last tried and when a shell tries next, also as JSON")
    func statusShowsTheSchedule() throws {
        let harness = try Self.offline()
        let before = harness.runCapturing("sync --status")
        #expect(before.out.contains("Last try") && before.out.contains("never"), "\(before.out)")
        let schedule = try Self.idle(harness)
        let text = harness.runCapturing("sync --status")
        #expect(text.out.contains("Last try"), "\(text.out)")
        #expect(text.out.contains(try #require(schedule.lastAttempt?.text)))
        #expect(text.out.contains("Next try"))
        #expect(text.out.contains(try #require(schedule.nextAttempt?.text) + ", from a shell waiting at its prompt"))
        let json = harness.runCapturing("sync --status --json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["lastAttempt"] as? String == schedule.lastAttempt?.text)
        #expect(object["nextAttempt"] as? String == schedule.nextAttempt?.text)

        try harness.database.writer.write { db in try db.execute(sql: "DELETE FROM core_outbox") }
        #expect(harness.runCapturing("sync --status").out.contains("nothing waits to be sent"))
    }
}
