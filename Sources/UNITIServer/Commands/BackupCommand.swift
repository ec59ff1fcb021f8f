import ArgumentParser
import Foundation

/// `--pg-bin DIR`: where PostgreSQL's client programs are, when `PATH` has none of the server's
/// version.
struct PostgresToolOptions: ParsableArguments {
    @Option(name: .customLong("pg-bin"), help: ArgumentHelp(
        "PostgreSQL only: the folder of pg_dump and pg_restore of the server's major version (default: PATH).", valueName: "dir"))
    var folder: String?

    var tools: PostgreSQLBackup.Tools { PostgreSQLBackup.Tools(folder: folder) }
}

/// `uniti-server backup --database … --out FILE`: a consistent copy of the store while the server
/// serves (``StoreBackup``). Prints one line with what the copy holds and how it was verified; a
/// nightly timer runs it (`Documentation/deploy.md`).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database while the server serves: SQLite's online backup, or pg_dump's custom format; the file is private (0600) and verified.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: ArgumentHelp("The backup file; replaced only once the new copy is whole and verified.", valueName: "file"))
    var out: String
    @OptionGroup var postgres: PostgresToolOptions

    func run() async throws {
        let location = try StoreLocation(parsing: database.database)
        // A failure is one line, "Error: …", and a non-zero exit (a timer's unit then fails).
        let (contents, verified) = try await StoreBackup.backup(location, to: out, postgresTools: postgres.tools)
        print("Backed up \(contents) to \(out) (\(verified)).")
    }
}

/// `uniti-server restore FILE --database …`: fills an empty store from a backup, then prints what
/// it holds. A store that holds data is refused, naming what it holds: a restore never mixes two
/// studies' data or overwrites the live one.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Fill an empty database from a file made by `backup` (refuses one that holds data).")

    @Argument(help: ArgumentHelp("A file made by `uniti-server backup`.", valueName: "file"))
    var file: String
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var postgres: PostgresToolOptions

    func run() async throws {
        let location = try StoreLocation(parsing: database.database)
        // The command is where the wall clock is read (migrations record when they ran).
        let contents = try await StoreBackup.restore(file, into: location, now: Date(), postgresTools: postgres.tools)
        print("Restored \(contents) from \(file).")
    }
}
