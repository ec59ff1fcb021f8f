import Foundation

/// A real PostgreSQL server for tests: a throwaway cluster made by `initdb` in a temporary
/// directory and started by `pg_ctl` on a free loopback port (and a Unix socket in the same
/// directory), with trust authentication for its one superuser `uniti`. Debian's `postgresql`
/// package provides the programs (`Scripts/bootstrap --tests` installs it); without them the
/// tests fail naming the script, they are never skipped.
///
/// PostgreSQL refuses to run as root, so under root (CI) the cluster belongs to the `postgres`
/// system user the package creates and its programs run through `runuser`.
///
/// One cluster serves a whole test process (``shared``): each test makes its own database
/// (``createDatabase()``), so tests stay independent and may run in parallel. The cluster stops
/// when the process exits, and a watchdog stops it too if the process is killed, so no server
/// outlives the test run.
public final class PostgresCluster: @unchecked Sendable {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    public static let superuser = "uniti"
    public let directory: String
    public let port: Int
    /// The directory holding the server's Unix socket (`.s.PGSQL.<port>`).
    public var socketDirectory: String { directory }
    private let bin: String
    private let owner: String?
    private let lock = NSLock()
    private var stopped = false
    private var databases = 0

    /// The cluster of this test process, started on first use.
    public static func shared() throws -> PostgresCluster {
        try sharedCluster.get()
    }

    /// A new database in the shared cluster, its URL; the cluster started first if need be. Both
    /// wait for programs (`initdb`, `pg_ctl`, `createdb`), so they run on a thread of Dispatch's,
    /// not on one of the few the tests' concurrency shares: there, every test of the run would
    /// wait with them (the first ~70 s of a CI run did, until a one-minute time limit fell).
    public static func newDatabase() async throws -> String {
        try await offPool { try shared().createDatabase() }
    }

    /// The shared cluster, started (if need be) off the tests' concurrency, as ``newDatabase()``.
    public static func started() async throws -> PostgresCluster {
        try await offPool { try shared() }
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
            DispatchQueue.global().async { done.resume(with: Result { try work() }) }
        }
    }

    private static let sharedCluster: Result<PostgresCluster, any Error> = Result {
        let cluster = try PostgresCluster()
        atexit { try? PostgresCluster.sharedCluster.get().stop() }
        return cluster
    }

    public init() throws {
        bin = try Self.binDirectory()
        owner = getuid() == 0 ? "postgres" : nil
        if let owner, getpwnam(owner) == nil {
            throw Missing(description: "PostgreSQL refuses to run as root and there is no '\(owner)' user: run Scripts/bootstrap --tests (it installs postgresql, which creates it)")
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        directory = base.path
        if let owner {
            try ServerProgram.checked("/bin/chown", [owner, directory])
        }
        port = Int(try LoopbackListener().port)
        let data = directory + "/data"
        try run("initdb", ["-D", data, "-U", Self.superuser, "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        let options = "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories=\(directory)"
            + " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=500"
        try run("pg_ctl", ["-D", data, "-l", directory + "/server.log", "-o", options, "-w", "-t", "60", "start"])
        watchOverThisProcess(data: data)
    }

    /// A new empty database with a unique name; returns its `postgres://` URL.
    public func createDatabase() throws -> String {
        let name: String = lock.withLock {
            databases += 1
            return "test_\(getpid())_\(databases)"
        }
        try run("createdb", ["-h", directory, "-p", String(port), "-U", Self.superuser, name])
        return url(database: name)
    }

    /// The URL of a database over TCP on loopback.
    public func url(database: String) -> String {
        "postgres://\(Self.superuser)@127.0.0.1:\(port)/\(database)"
    }

    /// The URL of a database through the Unix socket.
    public func socketURL(database: String) -> String {
        "postgres://\(Self.superuser)@/\(database)?host=\(directory)&port=\(port)"
    }

    /// Runs SQL through `psql` (as a coordinator could) and returns its rows, one line each with
    /// columns separated by `|`.
    public func query(_ sql: String, database: String) throws -> [String] {
        let out = try run("psql", ["-h", directory, "-p", String(port), "-U", Self.superuser, "-d", database,
                                   "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        return out.split(separator: "\n").map(String.init)
    }

    /// Stops the server at once and removes its files; safe to call twice.
    public func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = try? run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    // MARK: Programs

    /// Debian keeps the server programs in /usr/lib/postgresql/<version>/bin; the newest wins.
    static func binDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let usable = versions.compactMap { Int($0) }.sorted(by: >).map { "\(root)/\($0)/bin" }
            .filter { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
        guard let newest = usable.first else {
            throw Missing(description: "PostgreSQL is not installed (no initdb under \(root)): run Scripts/bootstrap --tests (it installs postgresql)")
        }
        return newest
    }

    @discardableResult
    private func run(_ program: String, _ arguments: [String]) throws -> String {
        let path = program == "psql" || program == "createdb" ? try Self.clientProgram(program, bin: bin) : bin + "/" + program
        do {
            return try ServerProgram.run([path] + arguments, as: owner)
        } catch let failure as ServerProgram.Failure {
            throw Missing(description: failure.description)
        }
    }

    private static func clientProgram(_ name: String, bin: String) throws -> String {
        if FileManager.default.isExecutableFile(atPath: bin + "/" + name) { return bin + "/" + name }
        for directory in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
            return directory + "/" + name
        }
        throw Missing(description: "\(name) is not installed: run Scripts/bootstrap --tests (it installs postgresql)")
    }

    /// Stops the server when this test process ends, even when it was killed.
    private func watchOverThisProcess(data: String) {
        let ctl = bin + "/pg_ctl"
        let stop = owner.map { "\(ServerProgram.runuser) -u \($0) -- \(ctl)" } ?? ctl
        ServerProgram.watchOverThisProcess(stop: "\(stop) -D '\(data)' -m immediate stop >/dev/null 2>&1; rm -rf '\(directory)'")
    }
}
