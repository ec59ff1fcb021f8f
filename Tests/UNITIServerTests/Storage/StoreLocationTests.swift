import Foundation
import Testing
@testable import UNITIServer

@Suite("--database: a SQLite file or a PostgreSQL URL", .timeLimit(.minutes(10)))
struct StoreLocationTests {
    @Test("a path is SQLite; postgres:// and postgresql:// URLs over TCP or a Unix socket are PostgreSQL")
    func parsing() throws {
        #expect(try StoreLocation(parsing: "/var/lib/uniti/study.sqlite") == .sqlite(path: "/var/lib/uniti/study.sqlite"))
        #expect(try StoreLocation(parsing: "study.sqlite") == .sqlite(path: "study.sqlite"))
        #expect(try StoreLocation(parsing: "postgres://uniti:s%40cret@db.example.org:6543/study", environment: [:])
                == .postgres(.init(host: "db.example.org", port: 6543, socketPath: nil, username: "uniti", password: "s@cret", database: "study")))
        #expect(try StoreLocation(parsing: "postgresql://uniti@10.0.0.5/study", environment: ["PGPASSWORD": "from-env"])
                == .postgres(.init(host: "10.0.0.5", port: 5432, socketPath: nil, username: "uniti", password: "from-env", database: "study")))
        #expect(try StoreLocation(parsing: "postgres://uniti@/study?host=/var/run/postgresql&port=5433", environment: [:])
                == .postgres(.init(host: nil, port: 5433, socketPath: "/var/run/postgresql/.s.PGSQL.5433", username: "uniti",
                                   password: nil, database: "study")))
        #expect(try StoreLocation(parsing: "postgres://uniti@db/study", environment: [:]) == .postgres(.init(
            host: "db", port: 5432, socketPath: nil, username: "uniti", password: nil, database: "study", connections: 20)))
        #expect(try StoreLocation(parsing: "postgres://uniti@db/study?connections=8", environment: [:]) == .postgres(.init(
            host: "db", port: 5432, socketPath: nil, username: "uniti", password: nil, database: "study", connections: 8)))
    }

    @Test("a URL without user, database, host or with a bad port is refused in one line that hides the password")
    func refusals() {
        for (text, reason) in [("postgres://db.example.org/study", "names no user"), ("postgres://uniti:pw@db.example.org", "names no database"),
                               ("postgres://uniti:pw@db.example.org:99999/study", "no valid port"), ("postgres://uniti@/study", "names no host"),
                               ("postgres://uniti:pw@db/study?connections=0", "from 1 to 100"),
                               ("postgres://uniti:pw@db/study?connections=many", "from 1 to 100"),
                               ("", "empty")] {
            do {
                _ = try StoreLocation(parsing: text, environment: [:])
                Issue.record("'\(text)' was accepted")
            } catch {
                let message = "\(error)"
                #expect(message.contains(reason), "\(text): \(message)")
                #expect(!message.contains(":pw@"), "the password is shown: \(message)")
                #expect(!message.contains("\n"))
            }
        }
    }
}
