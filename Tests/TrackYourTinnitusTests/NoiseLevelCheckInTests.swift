import Foundation
import GRDB
import Testing
@testable import TrackYourTinnitus
import UNITICore
import UNITIProtocol
import UNITITesting

/// The ambient noise level of a check-in (thesis FR6), measured by the core while the person
/// answers and copied from the sheet into the result.
@Suite("Noise level of a check-in (thesis FR6)", .timeLimit(.minutes(10)))
struct NoiseLevelCheckInTests {
    /// Half a second of a 250 Hz tone rising in loudness: a level that depends on every sample.
    static let ambient: [Int16] = (0..<22_050).map { i in
        pcm16(Float((0.02 + 0.1 * Double(i) / 22_050) * sin(2 * Double.pi * 250 * Double(i) / 44_100)))
    }

    static var ambientLevel: Double {
        var meter = LevelMeter()
        meter.add(ambient)
        return meter.rmsDBFS
    }

    /// The sheets queued for the server, by id.
    static func queuedSheets(_ fixture: TinnitusFixture) throws -> [AnswerSheet] {
        try fixture.harness.queued().values.filter { $0.kind == "answerSheet" }
            .map { try APIClient.decoder.decode(AnswerSheet.self, from: $0.payload) }
    }

    @Test("tyt fill --noise-from stores the file's level in the result and in the sheet, without asking the microphone permission")
    func fillNoiseFromFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tyt-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try WAVWriter(path: path, format: .cdMono)
        try writer.write(Self.ambient)
        try writer.close()
        let fixture = try TinnitusFixture(input: CheckInTests.answers)

        #expect(fixture.harness.run("tyt fill --noise-from \(path)") == .success)
        let result = try #require(try ResultStore(database: fixture.services.database).all().first)
        let level = try #require(result.noiseDBFS)
        #expect(abs(level - Self.ambientLevel) < 0.01)
        let sheet = try #require(try Self.queuedSheets(fixture).first)
        #expect(sheet.sensors?.microphone?.dbfs == level)
        #expect(fixture.output.out.contains("Ambient noise: \(String(format: "%.1f", level)) dBFS"))
        #expect(!fixture.output.out.contains("is not measured"))
        #expect(try fixture.context.sensors.permissions.permission(for: .microphone) == nil)
    }

    @Test("tyt fill --noise-from with a file that is not there fails before the first question and stores nothing")
    func fillNoiseFromMissingFile() throws {
        let fixture = try TinnitusFixture(input: CheckInTests.answers)
        #expect(fixture.harness.run("tyt fill --noise-from /nonexistent/noise.wav") == .failure)
        #expect(fixture.harness.input.prompts.isEmpty)
        #expect(try ResultStore(database: fixture.services.database).count() == 0)
    }

    @Test("with the microphone allowed, the check-in's level is the one the engine wrote into the sheet")
    func levelFromTheSheet() throws {
        let fixture = try TinnitusFixture(input: CheckInTests.answers, microphone: ModuleHarness.microphone(hearing: Self.ambient))
        #expect(fixture.harness.run("tyt settings noise on") == .success)
        let result = try MomentaryCheckIn(context: fixture.context).run(recording: nil)
        let sheet = try #require(try Self.queuedSheets(fixture).first)
        let reading = try #require(sheet.sensors?.microphone)
        #expect(result.noiseDBFS == reading.dbfs)
        #expect(abs(reading.dbfs - Self.ambientLevel) < 0.01)
    }

    @Test("without the microphone permission the check-in is stored without a level, and one line says how to allow it")
    func noPermissionNoLevel() throws {
        let fixture = try TinnitusFixture(input: CheckInTests.answers, microphone: ModuleHarness.microphone(hearing: Self.ambient))
        let result = try MomentaryCheckIn(context: fixture.context).run(recording: nil)
        #expect(result.noiseDBFS == nil)
        #expect(try Self.queuedSheets(fixture).first?.sensors == nil)
        let notices = fixture.output.out.split(separator: "\n").filter { $0.contains("is not measured") }
        #expect(notices.count == 1)
        #expect(notices.first?.contains("'sensors allow microphone'") == true)
    }

    @Test("tyt settings noise on|off is the core's microphone permission, also in German words; anything else is refused")
    func noiseSettingIsThePermission() throws {
        let fixture = try TinnitusFixture()
        let permissions = fixture.context.sensors.permissions
        #expect(fixture.harness.run("tyt settings noise on") == .success)
        #expect(try permissions.permission(for: .microphone) == .allowed)
        #expect(fixture.harness.run("tyt settings noise aus") == .success)
        #expect(try permissions.permission(for: .microphone) == .refused)
        #expect(fixture.harness.run("tyt settings noise ein") == .success)
        #expect(try permissions.permission(for: .microphone) == .allowed)
        #expect(fixture.harness.run("tyt settings noise maybe") == .failure)
        #expect(try permissions.permission(for: .microphone) == .allowed)
        #expect(fixture.harness.run("tyt settings calibration 94") == .success)
        #expect(try NoiseSettings.load(fixture.context).calibrationOffset == 94)
    }

    @Test("the module's old noise switch becomes the microphone permission when the database is upgraded",
          arguments: [("on", SensorPermission.allowed), ("off", .refused)])
    func oldSwitchCarriesOver(old: String, permission: SensorPermission) throws {
        let directory = DataDirectory(path: NSTemporaryDirectory() + "tyt-upgrade-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        try directory.create()
        do {
            // The database as the previous version left it: without the last step, with the switch.
            let module = TrackYourTinnitusModule()
            let sets = try ModuleRegistry([module], program: .integrated, reservedNames: []).migrationSets.map { set in
                set.owner == "tyt" ? MigrationSet(owner: "tyt", steps: set.steps.filter { $0.name != "v3-noise-permission" }) : set
            }
            let database = try AppDatabase(path: directory.databasePath, migrationSets: sets)
            try SettingsStore(database: database).set("tyt.noise.enabled", to: old)
        }
        let fixture = try TinnitusFixture(directory: directory)
        #expect(try fixture.context.sensors.permissions.permission(for: .microphone) == permission)
        #expect(try fixture.services.settings.string("tyt.noise.enabled") == nil)
    }
}
