import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// A read that every request makes is prepared once per PostgreSQL connection
/// (``StoreDatabase/frequentRows(_:_:)``), and gives the same answers as any other read. With a
/// pool of one connection, PostgreSQL's `pg_prepared_statements` of that connection is the
/// server's own.
@Suite("Frequent reads prepared once per connection (PostgreSQL)", .timeLimit(.minutes(10)))
struct FrequentReadTests {
    @Test("the session read is prepared on the connection once, and finds a live session, a revoked one not, an unknown token not")
    func sessionReadIsPrepared() async throws {
        guard case .postgres(let location) = try StoreLocation(parsing: try await PostgresCluster.newDatabase()) else {
            throw TestFailure("the cluster's URL is no PostgreSQL location")
        }
        let now = TestTime.now
        let store = try await ServerStore.postgres(location, maximumConnections: 1, now: now, modules: serverModuleParts)
        let id = try await store.createUser(username: "ada", email: "ada@example.org", passwordHash: "x", language: "en",
                                            pseudonym: "p-000000000001", now: now)
        for token in ["live", "ended"] {
            try await store.createSession(userId: id, accessHash: token, accessExpiresAt: now.addingTimeInterval(3600),
                                          refreshHash: token + "-refresh", refreshExpiresAt: now.addingTimeInterval(86_400), now: now)
        }
        let ended = try #require(try await store.session(accessHash: "ended", now: now))
        try await store.revokeSession(id: ended.sessionId, now: now)

        #expect(try await store.session(accessHash: "live", now: now)?.account.username == "ada")
        #expect(try await store.session(accessHash: "ended", now: now) == nil)
        #expect(try await store.session(accessHash: "unknown", now: now) == nil)
        #expect(try await store.session(accessHash: "live", now: now.addingTimeInterval(3601)) == nil, "expired an hour later")

        let prepared: [String] = try await store.database.rows("SELECT name FROM pg_prepared_statements").map { try $0["name"] }
        #expect(prepared.filter { $0 == "uniti_SessionRead" }.count == 1, "\(prepared)")
        await store.close()
    }
}
