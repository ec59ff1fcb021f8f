import Logging
import Testing
@testable import UNITIServer

@Suite("PostgreSQL's background log", .timeLimit(.minutes(10)))
struct PostgresLogFilterTests {
    @Test("postgres-nio's warning of a lease before run() is dropped; its other warnings and errors, and their metadata, pass")
    func leaseBeforeRunIsDropped() {
        let captured = CapturedLog()
        var logger = LeaseBeforeRunFilter.wrapping(captured.logger)
        logger[metadataKey: "db"] = "uniti"
        logger.warning("Trying to lease connection from `PostgresClient`, but `PostgresClient.run()` hasn't been called yet.")
        logger.warning("Connection closed unexpectedly")
        logger.error("Trying to lease connection from `PostgresClient`, but the pool is shut down")
        #expect(captured.lines.withLock { $0 } == [
            "warning Connection closed unexpectedly",
            "error Trying to lease connection from `PostgresClient`, but the pool is shut down",
        ])
        #expect(logger[metadataKey: "db"] == "uniti")
        logger.logLevel = .error
        logger.warning("below the level")
        #expect(captured.lines.withLock { $0 }.count == 2)
    }
}
