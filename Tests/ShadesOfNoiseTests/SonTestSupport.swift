import Foundation
@testable import ShadesOfNoise
import UNITICore
import UNITIProtocol
import UNITITesting

/// The shared harness around the module (integrated by default), with scripted input, captured
/// output and a fixed clock.
struct SonFixture {
    let harness: ModuleHarness
    let module = ShadesOfNoiseModule()
    var services: CoreServices { harness.services }
    var context: ModuleContext { harness.context() }
    var output: CapturedOutput { harness.output }
    var clock: FixedClock { harness.clock }
    var database: AppDatabase { harness.database }
    var store: SonStore { SonStore(records: context.records) }

    init(input: [String] = [], now: Date = ModuleHarness.defaultNow, program: ProgramKind = .integrated) throws {
        harness = try ModuleHarness(ShadesOfNoiseModule(), program: program, input: input, now: now)
    }

    /// The outbox entries queued so far, by client id.
    func queued() throws -> [String: Outbox.Entry] { try harness.queued() }

    /// Applies records as a sync pull would, in one transaction.
    func pull(_ records: [ModuleRecord]) throws {
        try harness.pull(records: records)
    }
}

/// A record of `son` as the server would send it: `updatedAt` in UTC, to the millisecond.
func pulledRecord(_ record: some SyncedRecord, at date: Date) throws -> ModuleRecord {
    try ModuleHarness.record(record, owner: .son, at: date)
}

/// A tombstone of `son` as the server would send it.
func pulledTombstone<Record: SyncedRecord>(_ type: Record.Type, id: String, at date: Date) -> ModuleRecord {
    ModuleHarness.tombstone(type, id: id, owner: .son, at: date)
}
