import Foundation

/// Backup and restore of a PostgreSQL store with PostgreSQL's own programs: `pg_dump` in its
/// custom format (compressed, restorable table by table) and `pg_restore`. They must be of the
/// server's major version: a `pg_dump` older than the server refuses to dump it, and a dump is
/// read by a `pg_restore` of its version or newer, so keeping all three on one version is the
/// rule an operator can follow without a table.
///
/// The counts printed are those of the dump itself: the command opens a repeatable-read
/// transaction, exports its snapshot, counts in it and has `pg_dump` dump that same snapshot
/// (`--snapshot`), so the figures and the file agree however many uploads arrive meanwhile.
enum PostgreSQLBackup {
    /// The client programs to use: from `folder` when the operator names one, else from `PATH`.
    struct Tools {
        let dump: ExternalProgram?
        let restore: ExternalProgram?

        init(folder: String?) {
            dump = ExternalProgram.find("pg_dump", in: folder)
            restore = ExternalProgram.find("pg_restore", in: folder)
        }

        /// The program, of the server's major version, or one line saying what to install.
        func checked(_ name: String, serverMajor: Int) throws -> ExternalProgram {
            guard let program = name == "pg_dump" ? dump : restore else {
                throw StoreBackup.Failure("\(name) not found: install PostgreSQL's client programs of version \(serverMajor) (Debian: postgresql-client-\(serverMajor)) or name their folder with --pg-bin")
            }
            let version = try program.run(["--version"])
            guard let major = version.output.firstMatch(of: /\(PostgreSQL\) (\d+)/).flatMap({ Int($0.1) }) else {
                throw StoreBackup.Failure("\(program.path) --version did not name a PostgreSQL version: \(version.lastLine)")
            }
            guard major == serverMajor else {
                throw StoreBackup.Failure("\(program.path) is PostgreSQL \(major) but the server runs \(serverMajor): use the client programs of version \(serverMajor) (Debian: postgresql-client-\(serverMajor)), e.g. --pg-bin /usr/lib/postgresql/\(serverMajor)/bin")
            }
            return program
        }
    }

    /// Dumps the store to `temporary` (created 0600) and lists the dump with `pg_restore --list`
    /// to verify it. Returns what the dump holds.
    static func backup(_ location: StoreLocation.PostgresLocation, to temporary: String, tools: Tools) async throws -> StoreContents {
        try await withDatabase(location) { database in
            let major = try await serverMajorVersion(database)
            let dump = try tools.checked("pg_dump", serverMajor: major)
            let restore = try tools.checked("pg_restore", serverMajor: major)
            try PrivateFiles.createIfMissing(temporary)
            let contents = try await database.snapshot { db in
                guard let snapshot: String = try await db.row("SELECT pg_export_snapshot() AS id")?["id"] else {
                    throw StoreCorruption("pg_export_snapshot() returned no row")
                }
                let contents = try await StoreContents.read(db)
                let dumped = try dump.run(["--format=custom", "--snapshot=\(snapshot)", "--file=\(temporary)", "--no-password"],
                                          environment: environment(location))
                guard dumped.succeeded else { throw StoreBackup.Failure("pg_dump failed: \(dumped.lastLine)") }
                return contents
            }
            let listed = try restore.run(["--list", temporary])
            guard listed.succeeded, listed.output.contains("TABLE DATA"), listed.output.contains(" answer_sheets ") else {
                throw StoreBackup.Failure("pg_restore --list cannot read the dump: \(listed.lastLine)")
            }
            return contents
        }
    }

    /// Restores the dump `file` into the store, refusing one that holds data; the restore is one
    /// transaction (`--single-transaction`), so a failure leaves the store as it was.
    static func restore(_ file: String, into location: StoreLocation.PostgresLocation, tools: Tools) async throws {
        try await withDatabase(location) { database in
            let found = try await StoreContents.read(database)
            try StoreBackup.refuseUnlessEmpty(found, path: StoreLocation.redacted(location.database))
            let restore = try tools.checked("pg_restore", serverMajor: try await serverMajorVersion(database))
            let listed = try restore.run(["--list", file])
            guard listed.succeeded else {
                throw StoreBackup.Failure("\(file) is not a backup pg_restore can read: \(listed.lastLine)")
            }
            // --clean --if-exists: a database a server has already started on holds the empty
            // schema, which the dump's own replaces.
            let restored = try restore.run(["--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction",
                                            "--exit-on-error", "--no-password", "--dbname=\(location.database)", file],
                                           environment: environment(location))
            guard restored.succeeded else { throw StoreBackup.Failure("pg_restore failed: \(restored.lastLine)") }
        }
    }

    /// The connection as libpq's environment, so no password appears in a process list.
    static func environment(_ location: StoreLocation.PostgresLocation) -> [String: String] {
        var environment = ["PGUSER": location.username, "PGDATABASE": location.database, "PGPORT": String(location.port)]
        if let socket = location.socketPath {
            environment["PGHOST"] = (socket as NSString).deletingLastPathComponent
        } else {
            environment["PGHOST"] = location.host ?? "127.0.0.1"
        }
        if let password = location.password { environment["PGPASSWORD"] = password }
        return environment
    }

    private static func serverMajorVersion(_ database: PostgreSQLDatabase) async throws -> Int {
        guard let text: String = try await database.row("SELECT current_setting('server_version_num') AS version")?["version"],
              let number = Int(text) else { throw StoreCorruption("the server did not say its version") }
        return number / 10_000
    }

    /// Connects without touching the schema (a restore's target must stay as it is until the
    /// dump replaces it) and closes the pool when `body` is done.
    private static func withDatabase<T: Sendable>(_ location: StoreLocation.PostgresLocation,
                                                  _ body: (PostgreSQLDatabase) async throws -> T) async throws -> T {
        let database = try await PostgreSQLDatabase(location: location, maximumConnections: 2) { _, _ in }
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }
}
