import ArgumentParser
import Foundation

/// `uniti-server maintenance rebuild-comparison`: recomputes what the server derives from the
/// stored answers. The comparison's running sums are kept in each sheet's own transaction, so
/// this is needed only after answers were written into the database some other way (a restore
/// of the answer tables alone, a bulk load such as `Scripts/bench/scale`'s).
struct MaintenanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance", abstract: "Recompute what the server derives from the stored answers; rewrite the tables of deleted people.",
        subcommands: [RebuildComparison.self, Compact.self])

    /// `maintenance compact`: rewrites the tables that hold people's rows, so that the bytes of
    /// deleted rows leave PostgreSQL's table files (a plain VACUUM after a deletion prunes the rows
    /// but can leave their bytes in the pages' free space). It locks each table while it is
    /// rewritten: run it when the server is quiet. See `Documentation/uniti-server.md`, "Deletion".
    /// `--if-needed` (the nightly `uniti-server-compact.timer`) does it only when an account or a
    /// study's answers were deleted since the last compaction, so quiet nights lock nothing.
    struct Compact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compact",
            abstract: "Rewrite the tables of people's data so no deleted value stays in the files (PostgreSQL: VACUUM FULL; SQLite: VACUUM).")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Only when an account or a study's answers were deleted since the last compaction.")
        var ifNeeded = false

        func run() async throws {
            let compacted = try await MaintenanceCommand.run(on: database) { try await $0.compactPersonalTables(ifNeeded: ifNeeded) }
            print(compacted ? "Rewrote the tables of people's data."
                            : "Nothing was deleted since the last compaction; the tables were left as they were.")
        }
    }

    struct RebuildComparison: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rebuild-comparison",
            abstract: "Recompute the comparison's running sums from every stored answer (in one transaction).")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await MaintenanceCommand.run(on: database) { try await $0.rebuildComparisonSums() }
            print("Rebuilt the comparison sums.")
        }
    }

    /// Opens the store, does `work`, closes the store (also when `work` fails).
    static func run<T>(on database: DatabaseOptions, _ work: (ServerStore) async throws -> T) async throws -> T {
        let store = try await database.openStore()
        do {
            let result = try await work(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}
