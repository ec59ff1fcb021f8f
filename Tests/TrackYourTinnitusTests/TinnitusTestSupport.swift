import Foundation
@testable import TrackYourTinnitus
import UNITICore

/// A fresh data directory with the core's and the module's tables, scripted input, captured
/// output and a fixed clock.
struct TinnitusFixture {
    let services: CoreServices
    let context: ModuleContext
    let output: CapturedOutput
    let clock: FixedClock
    let module = TrackYourTinnitusModule()

    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    init(input: [String] = [], now: Date = Date(timeIntervalSince1970: 1_790_000_000)) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-tyt-\(UUID().uuidString)")
        let directory = DataDirectory(path: folder.path)
        try directory.create()
        let registry = try ModuleRegistry([module], reservedNames: [], commandsAtTopLevel: false)
        let database = try AppDatabase(path: directory.databasePath, migrationSets: registry.migrationSets)
        let (console, output) = Console.capturing()
        clock = FixedClock(now, timeZone: Self.berlin)
        services = CoreServices(dataDirectory: directory, database: database, console: console,
                                input: ScriptedInput(input), clock: clock, random: SeededRandomSource(seed: 11))
        context = ModuleContext(services: services, module: module.descriptor)
        self.output = output
    }
}
