import ArgumentParser
import Foundation

/// `uniti-server maintenance rebuild-comparison`: recomputes what the server derives from the
/// stored answers. The comparison's running sums are kept in each sheet's own transaction, so
/// this is needed only after answers were written into the database some other way (a restore
/// of the answer tables alone, a bulk load such as `Scripts/bench/scale`'s).
struct MaintenanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance", abstract: "Recompute what the server derives from the stored answers.",
        subcommands: [RebuildComparison.self])

    struct RebuildComparison: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rebuild-comparison",
            abstract: "Recompute the comparison's running sums from every stored answer (in one transaction).")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let store = try await database.openStore()
            do {
                try await store.rebuildComparisonSums()
            } catch {
                await store.close()
                throw error
            }
            await store.close()
            print("Rebuilt the comparison sums.")
        }
    }
}
