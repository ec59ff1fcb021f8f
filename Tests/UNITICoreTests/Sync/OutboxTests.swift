import Foundation
import GRDB
import Testing
@testable import UNITICore

/// A deterministic generator for tests (SplitMix64).
struct TestRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Outbox", .timeLimit(.minutes(10)))
struct OutboxTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func makeDatabase(_ dir: String) throws -> AppDatabase {
        try AppDatabase(path: dir + "/db.sqlite", migrationSets: CoreMigrations.all)
    }

    @Test("a change and its outbox entry commit together, or neither does")
    func sameTransaction() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let database = try makeDatabase(dir)
        let outbox = Outbox(database: database)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try database.writer.write { db in
                try SettingsStore.write(db, "answer", "42")
                try Outbox.enqueue(db, kind: "record", moduleID: "tyt", clientID: "A", payload: Data("{}".utf8), at: start)
                throw Boom()
            }
        }
        #expect(try outbox.count(.pending) == 0)
        #expect(try SettingsStore(database: database).string("answer") == nil)
    }

    @Test("only acknowledged entries leave; re-queuing a client id replaces its payload")
    func acknowledgeAndReplace() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let database = try makeDatabase(dir)
        let outbox = Outbox(database: database)
        try database.writer.write { db in
            try Outbox.enqueue(db, kind: "record", moduleID: "tn", clientID: "A", payload: Data("1".utf8), at: start)
            try Outbox.enqueue(db, kind: "record", moduleID: "tn", clientID: "B", payload: Data("2".utf8), at: start)
            try Outbox.enqueue(db, kind: "record", moduleID: "tn", clientID: "A", payload: Data("3".utf8), at: start)
        }
        let due = try outbox.due(at: start)
        #expect(due.map(\.clientID) == ["A", "B"])
        #expect(due.first?.payload == Data("3".utf8))
        try outbox.acknowledge(due.filter { $0.clientID == "B" })
        #expect(try outbox.due(at: start).map(\.clientID) == ["A"])
    }

    @Test("an acknowledgement of a version sent before the record changed again does not remove the newer version")
    func acknowledgementKeepsNewerVersion() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let database = try makeDatabase(dir)
        let outbox = Outbox(database: database)
        try database.writer.write { db in
            try Outbox.enqueue(db, kind: "record", moduleID: "tn", clientID: "A", payload: Data("old".utf8), at: start)
        }
        let sent = try outbox.due(at: start)
        // While the sync talks to the server, the person changes the record (this or another program).
        try database.writer.write { db in
            try Outbox.enqueue(db, kind: "record", moduleID: "tn", clientID: "A", payload: Data("new".utf8), at: start)
        }
        var random = TestRandom(state: 3)
        try outbox.recordFailure(sent, error: "late failure report of the old version", at: start, using: &random)
        try outbox.reject(sent[0], reason: "a rejection of the old version")
        try outbox.acknowledge(sent)
        let left = try outbox.due(at: start)
        #expect(left.map(\.payload) == [Data("new".utf8)])
        #expect(left.first?.attempts == 0 && left.first?.state == .pending)
        try outbox.acknowledge(left)
        #expect(try outbox.due(at: start).isEmpty)
    }

    @Test("failures wait with growing, jittered delays; explicit sync makes them due again")
    func backoff() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let database = try makeDatabase(dir)
        let outbox = Outbox(database: database)
        var random = TestRandom(state: 7)
        try database.writer.write { db in
            try Outbox.enqueue(db, kind: "answerSheet", moduleID: "tyt", clientID: "S", payload: Data(), at: start)
        }
        try outbox.recordFailure(try outbox.due(at: start), error: "connection refused", at: start, using: &random)
        #expect(try outbox.due(at: start).isEmpty)
        #expect(try outbox.due(at: start.addingTimeInterval(Backoff.outbox.base)).count == 1)
        let entry = try #require(try outbox.due(at: start.addingTimeInterval(3600)).first)
        #expect(entry.attempts == 1)
        #expect(entry.lastError == "connection refused")
        try outbox.makeAllDue(at: start)
        #expect(try outbox.due(at: start).count == 1)
    }

    @Test("backoff delays double up to the cap and always stay within [ceiling/2, ceiling]")
    func backoffBounds() {
        var random = TestRandom(state: 1)
        for attempts in 1...30 {
            let ceiling = min(Backoff.outbox.cap, Backoff.outbox.base * pow(2, Double(min(attempts - 1, 20))))
            for _ in 0..<50 {
                let delay = Backoff.outbox.delay(afterAttempts: attempts, using: &random)
                #expect(delay >= ceiling / 2 && delay <= ceiling)
            }
        }
    }

    @Test("a rejected entry is kept with its reason and is no longer due")
    func rejection() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let database = try makeDatabase(dir)
        let outbox = Outbox(database: database)
        try database.writer.write { db in
            try Outbox.enqueue(db, kind: "answerSheet", moduleID: "tyt", clientID: "R", payload: Data(), at: start)
        }
        try outbox.reject(try #require(try outbox.due(at: start).first), reason: "items[2]: 140 is above the maximum 100")
        #expect(try outbox.due(at: start.addingTimeInterval(86400)).isEmpty)
        #expect(try outbox.rejected().map(\.lastError) == ["items[2]: 140 is above the maximum 100"])
        #expect(try outbox.count(.rejected) == 1)
    }

    @Test("a waiting entry is kept with its reason, is not due on any timer, and is due again once woken")
    func waiting() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let database = try makeDatabase(dir)
        let outbox = Outbox(database: database)
        try database.writer.write { db in
            try Outbox.enqueue(db, kind: "answerSheet", moduleID: "tyt", clientID: "W", payload: Data(), at: start)
            try Outbox.enqueue(db, kind: "answerSheet", moduleID: "tyt", clientID: "P", payload: Data(), at: start)
        }
        try outbox.wait(try outbox.due(at: start).filter { $0.clientID == "W" }, reason: "Questionnaire 'daily' version 1 is not available to you")
        #expect(try outbox.due(at: start.addingTimeInterval(30 * 86400)).map(\.clientID) == ["P"])
        try outbox.makeAllDue(at: start)
        #expect(try outbox.due(at: start).map(\.clientID) == ["P"])
        #expect(try outbox.waiting().map(\.lastError) == ["Questionnaire 'daily' version 1 is not available to you"])
        #expect(try outbox.count(.waiting) == 1)
        #expect(try outbox.wakeWaiting(at: start) == 1)
        #expect(try outbox.due(at: start).map(\.clientID) == ["W", "P"])
        #expect(try outbox.waiting().isEmpty)
    }
}

