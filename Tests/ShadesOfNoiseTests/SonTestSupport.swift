import Foundation
@testable import ShadesOfNoise
import UNITICore
import UNITIProtocol

/// A fresh data directory with the core's and the module's tables, scripted input, captured
/// output and a fixed clock.
struct SonFixture {
    let services: CoreServices
    let context: ModuleContext
    let output: CapturedOutput
    let clock: FixedClock
    let module = ShadesOfNoiseModule()

    init(input: [String] = [], now: Date = Date(timeIntervalSince1970: 1_790_000_000)) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-son-\(UUID().uuidString)")
        let directory = DataDirectory(path: folder.path)
        try directory.create()
        let registry = try ModuleRegistry([module], reservedNames: [], commandsAtTopLevel: false)
        let database = try AppDatabase(path: directory.databasePath, migrationSets: registry.migrationSets)
        let (console, output) = Console.capturing()
        clock = FixedClock(now, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        services = CoreServices(dataDirectory: directory, database: database, console: console,
                                input: ScriptedInput(input), clock: clock)
        context = ModuleContext(services: services, module: module.descriptor)
        self.output = output
    }

    var database: AppDatabase { services.database }

    /// The outbox entries queued so far, by client id.
    func queued() throws -> [String: Outbox.Entry] {
        let entries = try Outbox(database: database).due(at: Date.distantFuture)
        return Dictionary(entries.map { ($0.clientID, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Applies records as a sync pull would, in one transaction.
    func pull(_ records: [ModuleRecord]) throws {
        try database.writer.write { db in try module.applyPulledRecords(records, in: db) }
    }
}

/// A record as the server would send it: `updatedAt` in UTC, to the millisecond.
func pulledRecord(_ clientID: String, at date: Date, deleted: Bool = false, payload: some Encodable) throws -> ModuleRecord {
    let value = try APIClient.decoder.decode(JSONValue.self, from: APIClient.encoder.encode(payload))
    return ModuleRecord(moduleId: "son", clientId: clientID, updatedAt: OffsetTimestamp.utcMilliseconds(date),
                        deleted: deleted, payload: deleted ? nil : value)
}
