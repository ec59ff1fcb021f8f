import Foundation
import GRDB
import UNITICore
import UNITIHost
import UNITIProtocol

/// The one test set-up every module shares: a temporary data directory with the core's and the
/// modules' tables, a fixed clock, seeded chance, scripted input and captured output, a
/// microphone and a gpsd of the test's choosing (none by default, never the machine's sound
/// card or gpsd), and the real shell around the modules as either kind of program, so a test can run a module's
/// standalone command set in the default build.
///
/// ```swift
/// let harness = try ModuleHarness(TrackYourTinnitusModule(), program: .standalone, input: ["yes", "40"])
/// #expect(harness.run("fill") == .success)
/// ```
///
/// Topics:
/// - running: ``run(_:)`` (a command line through the shell), ``context(for:)`` (calling module
///   code directly);
/// - looking: ``output``, ``database``, ``queued()`` (what waits for the server);
/// - syncing without a server: ``pull(records:)`` and ``pull(sheets:)`` apply what a pull would;
///   ``record(_:owner:at:deleted:)`` builds a pulled record.
///
/// The directory is removed when the harness goes away.
public final class ModuleHarness: @unchecked Sendable {
    public let modules: [any UNITIModule]
    public let shell: Shell
    public let clock: FixedClock
    public let random: SeededRandomSource
    public let output: CapturedOutput
    public let input: ScriptedInput
    public let directory: DataDirectory

    /// A Tuesday noon in Berlin (2026-09-22 14:13:20 +02:00), far from any daylight-saving switch.
    public static let defaultNow = Date(timeIntervalSince1970: 1_790_000_000)
    public static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// - Parameters:
    ///   - modules: the modules; a standalone program has exactly one.
    ///   - program: the kind of program to run them in.
    ///   - input: lines the person types, in order.
    ///   - clock: the clock to use (shared with other parts of a test); a new one at `now` in
    ///     `timeZone` when nil.
    ///   - directory: an existing data directory to open (a second process on the same data);
    ///     a new temporary one when nil.
    ///   - microphone: what the microphone sensor hears; ``noMicrophone`` by default.
    ///   - gpsd: where the location sensor reads from (a ``GPSFake``'s client); ``noGPSD`` by default.
    public init(_ modules: [any UNITIModule], program: ProgramKind = .integrated, input: [String] = [],
                now: Date = ModuleHarness.defaultNow, timeZone: TimeZone = ModuleHarness.berlin, clock: FixedClock? = nil,
                seed: UInt64 = 11, directory: DataDirectory? = nil, microphone: SoundInput = ModuleHarness.noMicrophone,
                gpsd: GPSDClient = ModuleHarness.noGPSD) throws {
        precondition(program == .integrated || modules.count == 1, "a standalone program has one module")
        self.modules = modules
        let ownsDirectory = directory == nil
        self.directory = directory ?? DataDirectory(path: NSTemporaryDirectory() + "uniti-test-\(UUID().uuidString)")
        removesDirectory = ownsDirectory
        try self.directory.create()
        let shellProgram: ShellProgram = program == .standalone ? .standalone(modules[0]) : .host(programName: "uniti")
        let commands = Launcher.hostCommands(for: shellProgram)
        let registry = try ModuleRegistry(modules, program: program, reservedNames: Set(Shell.index(of: commands).keys))
        let database = try AppDatabase(path: self.directory.databasePath, migrationSets: registry.migrationSets)
        let (console, output) = Console.capturing()
        self.clock = clock ?? FixedClock(now, timeZone: timeZone)
        random = SeededRandomSource(seed: seed)
        self.input = ScriptedInput(input)
        self.output = output
        let services = CoreServices(dataDirectory: self.directory, database: database, console: console, input: self.input,
                                    clock: self.clock, random: random, program: program, microphone: microphone, gpsd: gpsd)
        shell = Shell(registry: registry, services: services, program: shellProgram, hostCommands: commands)
        // Record kinds are checked where records are routed; a wrong declaration fails here.
        _ = try RecordRouter(modules: modules)
        // As the launcher does when a program opens a data directory.
        try shell.prepare()
        // Modules outside the bundled default study (test modules) are enabled by a test study.
        let unknown = modules.map(\.descriptor.id).filter { ModuleCatalog.module($0) == nil }
        if !unknown.isEmpty {
            try services.studies.recordJoined(
                StudyDescriptor(id: "test-study", title: "Test study", modules: modules.map(\.descriptor.id.rawValue)),
                at: self.clock.now)
        }
    }

    /// A harness of one module.
    public convenience init(_ module: any UNITIModule, program: ProgramKind = .integrated, input: [String] = [],
                            now: Date = ModuleHarness.defaultNow, timeZone: TimeZone = ModuleHarness.berlin,
                            seed: UInt64 = 11, directory: DataDirectory? = nil,
                            microphone: SoundInput = ModuleHarness.noMicrophone, gpsd: GPSDClient = ModuleHarness.noGPSD) throws {
        try self.init([module], program: program, input: input, now: now, timeZone: timeZone, seed: seed, directory: directory,
                      microphone: microphone, gpsd: gpsd)
    }

    /// A machine without a capture device: opening it fails with one line, as ALSA's would.
    public static let noMicrophone = SoundInput(isLive: true) {
        throw UNITIError("no audio input device (test harness)")
    }

    /// A machine without gpsd: nothing listens on port 1 of loopback, so connecting is refused
    /// at once, as when no gpsd runs.
    public static let noGPSD = GPSDClient(endpoint: "127.0.0.1:1", timeout: 1)

    /// Sound that stands in for the microphone: `samples` (interleaved, in `format`), read to
    /// their end like a recording, so the level a sheet gets is exactly theirs.
    public static func microphone(hearing samples: [Int16], format: AudioFormat = .cdMono) -> SoundInput {
        SoundInput(isLive: false) { SampleSource(samples, format: format) }
    }

    private let removesDirectory: Bool

    deinit {
        if removesDirectory { try? FileManager.default.removeItem(atPath: directory.path) }
    }

    public var services: CoreServices { shell.services }
    public var database: AppDatabase { services.database }
    public var program: ProgramKind { services.program }

    /// The context a command of `module` runs with (the first module when nil).
    public func context(for module: (any UNITIModule)? = nil) -> ModuleContext {
        shell.context(for: module ?? modules[0])
    }

    /// Runs one command line and returns whether it succeeded and what it printed on standard
    /// output and as errors (only this command's part of the captured output).
    @discardableResult
    public func runCapturing(_ line: String) -> (succeeded: Bool, out: String, err: String) {
        let out = output.out.count, err = output.err.count
        let succeeded = run(line) == .success
        return (succeeded, String(output.out.dropFirst(out)), String(output.err.dropFirst(err)))
    }

    /// Runs one command line through the shell, as the person would type it.
    @discardableResult
    public func run(_ line: String) -> CommandOutcome {
        shell.execute(line: line)
    }

    /// The outbox entries queued so far, by client id.
    public func queued() throws -> [String: Outbox.Entry] {
        let entries = try services.outbox.due(at: .distantFuture, limit: 100_000)
        return Dictionary(entries.map { ($0.clientID, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The record upserts queued so far, by `<owner>/<client id>`.
    public func queuedRecords() throws -> [String: ModuleRecordUpsert] {
        var records: [String: ModuleRecordUpsert] = [:]
        for entry in try queued().values where entry.kind == "record" {
            let upsert = try APIClient.decoder.decode(ModuleRecordUpsert.self, from: entry.payload)
            records["\(upsert.moduleId)/\(upsert.clientId)"] = upsert
        }
        return records
    }

    /// Applies records as a sync pull would (merged by kind, or parked), in one transaction.
    @discardableResult
    public func pull(records: [ModuleRecord]) throws -> [RecordRouter.Outcome] {
        let router = try RecordRouter(modules: modules)
        return try database.writer.write { db in try records.map { try router.apply($0, in: db) } }
    }

    /// Gives sheets to their owners as a sync pull would, in one transaction.
    public func pull(sheets: [AnswerSheet]) throws {
        let router = SheetRouter(modules: modules)
        try database.writer.write { db in
            for sheet in sheets { try router.keep(sheet, in: db) }
        }
    }

    /// A record as the server would send it: `updatedAt` in UTC to the millisecond, the payload
    /// encoded the way records travel.
    public static func record(_ payload: some SyncedRecord, owner: ModuleID, at date: Date, deleted: Bool = false) throws -> ModuleRecord {
        ModuleRecord(moduleId: owner.rawValue, clientId: payload.address(owner: owner).clientID,
                     updatedAt: OffsetTimestamp.utcMilliseconds(date), deleted: deleted,
                     payload: deleted ? nil : try JSONDecoder().decode(JSONValue.self, from: RecordCoding.encoder.encode(payload)))
    }

    /// A tombstone as the server would send it.
    public static func tombstone<Record: SyncedRecord>(_ type: Record.Type, id: String, owner: ModuleID, at date: Date) -> ModuleRecord {
        ModuleRecord(moduleId: owner.rawValue, clientId: RecordAddress(owner: owner, kind: type.recordKind, id: id).clientID,
                     updatedAt: OffsetTimestamp.utcMilliseconds(date), deleted: true, payload: nil)
    }
}
