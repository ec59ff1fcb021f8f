import Foundation
import Prometheus
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// `uniti_database_waits_total` (issue 32): a use of the database that has to wait for another is
/// counted, on SQLite (the one writer connection) and on PostgreSQL (the connection pool). The
/// wait is made certain, not left to load: the test holds the writer, or the pool's only
/// connection, in a transaction until it has seen the second use counted as waiting.
@Suite("Database waits in the metrics (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct DatabaseWaitTests {
    /// A store of `kind` whose measures go to a registry of the test's own (the process's
    /// swift-metrics backend is shared by the tests running beside this one); PostgreSQL with a
    /// pool of one connection.
    func open(_ kind: StoreKind, registry: PrometheusCollectorRegistry) async throws -> (ServerStore, cleanup: @Sendable () -> Void) {
        let metrics = PrometheusMetricsFactory(registry: registry)
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-waits-\(UUID().uuidString)")
            let store = try ServerStore(sqlitePath: directory.appendingPathComponent("server.sqlite").path, modules: serverModuleParts,
                                        metrics: metrics)
            return (store, { try? FileManager.default.removeItem(at: directory) })
        case .postgres:
            guard case .postgres(let location) = try StoreLocation(parsing: try await PostgresCluster.newDatabase()) else {
                throw TestFailure("the cluster's URL is no PostgreSQL location")
            }
            let store = try await ServerStore.postgres(location, maximumConnections: 1, now: Date(), modules: serverModuleParts,
                                                       metrics: metrics)
            return (store, {})
        }
    }

    /// The counter's value in the text `/metrics` serves (0 before its first wait).
    func waits(_ registry: PrometheusCollectorRegistry) -> Double {
        let line = registry.emitToString().split(separator: "\n").first { $0.hasPrefix(ServerMetrics.databaseWaits + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test("a write while another holds the database waits and is counted exactly once; uses one after another are not counted",
          arguments: StoreKind.allCases)
    func waitIsCounted(_ kind: StoreKind) async throws {
        let registry = PrometheusCollectorRegistry()
        let (store, cleanup) = try await open(kind, registry: registry)
        defer { cleanup() }
        try await store.database.execute("CREATE TABLE wait_probe (n INTEGER)")
        try await store.database.execute("INSERT INTO wait_probe (n) VALUES (1)")
        #expect(try await store.database.rows("SELECT n FROM wait_probe").count == 1)
        #expect(waits(registry) == 0, "one use after another never waits")

        let (released, release) = AsyncStream<Void>.makeStream()
        let (held, hold) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await store.database.transaction { db in
                try await db.execute("INSERT INTO wait_probe (n) VALUES (2)")
                hold.finish()
                for await _ in released {}
            }
        }
        // Once the holder has written in its transaction it has the writer (the connection): the
        // second write is certain to wait, and the counter says so before the holder lets go.
        for await _ in held {}
        let waiting = Task { try await store.database.execute("INSERT INTO wait_probe (n) VALUES (3)") }
        var polls = 0
        while waits(registry) < 1, polls < 6000 {
            try await Task.sleep(for: .milliseconds(10))
            polls += 1
        }
        #expect(waits(registry) == 1)
        release.finish()
        try await holder.value
        try await waiting.value
        #expect(try await store.database.rows("SELECT n FROM wait_probe").count == 3)
        #expect(waits(registry) == 1, "exactly the one write that waited")
        await store.close()
    }
}
