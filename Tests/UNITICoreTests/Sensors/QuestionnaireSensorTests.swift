import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// The sensors a questionnaire asks for, read by the engine while the person answers, with the
/// person's permission per sensor.
@Suite("Sensors while answering")
struct QuestionnaireSensorTests {
    /// One yes/no question asking for `sensors` while it is answered.
    static func definition(_ sensors: [QuestionnaireSensor]) -> QuestionnaireDefinition {
        var definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "hears", text: "Do you hear it now?", required: true, element: .yesNo),
        ])
        definition.sensors = sensors
        return definition
    }

    /// 0.75 s of a 440 Hz tone over a little noise, about −23 dBFS: sound of a known level.
    static let heard: [Int16] = {
        let random = SeededRandomSource(seed: 5)
        return (0..<33_075).map { i in
            let tone = 0.1 * sin(2 * Double.pi * 440 * Double(i) / 44_100)
            let noise = Double(random.nextUInt64() % 2001) / 1_000_000 - 0.001
            return pcm16(Float(tone + noise))
        }
    }()

    static func level(of samples: [Int16]) -> Double {
        var meter = LevelMeter()
        meter.add(samples)
        return meter.rmsDBFS
    }

    static func harness(microphone: SoundInput = ModuleHarness.noMicrophone, permission: SensorPermission?) throws -> ModuleHarness {
        let harness = try ModuleHarness([], input: ["yes"], microphone: microphone)
        try SensorPermissions(settings: harness.services.settings).set(permission, for: .microphone)
        return harness
    }

    /// Answers the definition, storing the sheet with the answers in the core's store.
    static func answer(_ definition: QuestionnaireDefinition, in harness: ModuleHarness) throws -> QuestionnaireResult {
        let sheets = AnswerSheetStore(database: harness.database, clock: harness.clock)
        return try QuestionnaireEngine(services: harness.services, localizer: Localizer(language: .english))
            .answer(definition, owner: "tys") { result, db in try sheets.save(result.sheet, owner: "tys", in: db) }
    }

    static func noticeLines(_ output: CapturedOutput) -> [String] {
        output.out.split(separator: "\n").map(String.init).filter { $0.contains("is not measured") }
    }

    @Test("with the microphone allowed, the sheet gets the level of what the microphone heard (the meter over the same samples, to 0.01 dB)")
    func allowedMicrophoneLevelGoesIntoTheSheet() throws {
        let harness = try Self.harness(microphone: ModuleHarness.microphone(hearing: Self.heard), permission: .allowed)
        let result = try Self.answer(Self.definition([.microphoneLevel]), in: harness)

        let reading = try #require(result.sheet.sensors?.microphone)
        #expect(abs(reading.dbfs - Self.level(of: Self.heard)) < 0.01)
        #expect(abs(reading.dbfs + 23) < 1)
        #expect(reading.measuredAt == result.sheet.endedAt)
        let stored = try #require(try AnswerSheetStore(database: harness.database, clock: harness.clock).sheet(id: result.sheet.id))
        #expect(stored.sensors == result.sheet.sensors)
        #expect(Self.noticeLines(harness.output).isEmpty)
    }

    @Test("without permission the microphone is never opened, nothing is recorded, and one line says how to allow it",
          arguments: [nil, SensorPermission.refused])
    func noPermissionNoRecording(permission: SensorPermission?) throws {
        let opened = LockedValue(0)
        let microphone = SoundInput(isLive: true) {
            opened.withValue { $0 += 1 }
            return SampleSource(Self.heard)
        }
        let harness = try Self.harness(microphone: microphone, permission: permission)
        let result = try Self.answer(Self.definition([.microphoneLevel]), in: harness)

        #expect(opened.value == 0)
        #expect(result.sheet.sensors == nil)
        #expect(result.sheet.values == ["hears": .yesNo(true)])
        let notices = Self.noticeLines(harness.output)
        #expect(notices.count == 1)
        #expect(notices.first?.contains("type 'sensors allow microphone' to allow it") == true)
        #expect(notices.first?.contains("you refused it") == (permission == .refused))
    }

    @Test("with no capture device one line says why, and the answers are still stored")
    func noCaptureDeviceStillStoresAnswers() throws {
        let harness = try Self.harness(permission: .allowed)  // the harness has no microphone
        let result = try Self.answer(Self.definition([.microphoneLevel]), in: harness)

        #expect(result.sheet.sensors == nil)
        let stored = try AnswerSheetStore(database: harness.database, clock: harness.clock).sheets(owner: "tys")
        #expect(stored.map(\.values) == [["hears": .yesNo(true)]])
        #expect(Self.noticeLines(harness.output) == ["The ambient noise level is not measured: no audio input device (test harness)."])
    }

    @Test("a questionnaire asking for the location gets one line that it is not available in this version, and no reading")
    func locationIsDeclaredButNotRead() throws {
        let harness = try Self.harness(microphone: ModuleHarness.microphone(hearing: Self.heard), permission: .allowed)
        let result = try Self.answer(Self.definition([.location]), in: harness)

        #expect(result.sheet.sensors == nil)
        #expect(Self.noticeLines(harness.output) == ["Your location is not measured: not available in this version."])
    }

    @Test("a questionnaire asking for no sensor opens none and says nothing about sensors")
    func noSensorsNoNotice() throws {
        let opened = LockedValue(0)
        let microphone = SoundInput(isLive: true) { opened.withValue { $0 += 1 }; return SampleSource(Self.heard) }
        let harness = try Self.harness(microphone: microphone, permission: .allowed)
        let result = try Self.answer(Self.definition([]), in: harness)
        #expect(opened.value == 0)
        #expect(result.sheet.sensors == nil)
        #expect(Self.noticeLines(harness.output).isEmpty)
    }

    @Test("a sheet left unfinished stops the microphone and keeps no reading in its draft")
    func abandonedSheetStopsTheMicrophone() throws {
        let live = LiveTone()
        let harness = try ModuleHarness([], input: [], microphone: SoundInput(isLive: true) { live })
        try SensorPermissions(settings: harness.services.settings).set(.allowed, for: .microphone)
        #expect(throws: PromptCancelled.self) { try Self.answer(Self.definition([.microphoneLevel]), in: harness) }
        let delivered = live.deliveredFrames
        Thread.sleep(forTimeInterval: 0.05)
        #expect(live.deliveredFrames == delivered)  // nothing reads it any more
    }

    @Test("a live microphone is read until stopped, and its level is that of exactly the samples it delivered")
    func liveCaptureMeasuresWhatItRead() throws {
        let live = LiveTone()
        let capture = try MicrophoneLevelCapture.start(SoundInput(isLive: true) { live })
        live.waitUntilDelivered(frames: 44_100)
        let level = try capture.stop()
        let delivered = live.delivered
        #expect(delivered.count >= 44_100)
        #expect(abs(level - Self.level(of: delivered)) < 0.01)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(live.deliveredFrames == delivered.count)
    }

    @Test("a recording that cannot be read or is empty is refused before any question")
    func badRecordingIsRefusedAtOnce() throws {
        let harness = try Self.harness(permission: nil)
        let sensors = QuestionnaireSensors(services: harness.services)
        #expect(throws: UNITIError.self) { try sensors.replacingMicrophone(withRecording: "/nonexistent/noise.wav") }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: empty) }
        try WAVWriter(path: empty, format: .cdMono).close()
        let error = #expect(throws: UNITIError.self) { try sensors.replacingMicrophone(withRecording: empty) }
        #expect(error?.message.contains(empty) == true)
    }

    @Test("permissions are kept per sensor in the core settings, unset until the person answers")
    func permissionsPerSensor() throws {
        let harness = try Self.harness(permission: nil)
        let permissions = SensorPermissions(settings: harness.services.settings)
        #expect(try permissions.permission(for: .microphone) == nil)
        try permissions.set(.allowed, for: .microphone)
        try permissions.set(.refused, for: .location)
        #expect(try harness.services.settings.string("sensors.microphone") == "allowed")
        #expect(try harness.services.settings.string("sensors.location") == "refused")
        #expect(try permissions.isAllowed(.microphone) && !permissions.isAllowed(.location))
        try permissions.set(nil, for: .microphone)
        #expect(try permissions.permission(for: .microphone) == nil)
    }
}

/// An endless 1 kHz tone at −10 dBFS, as a microphone delivers sound: in blocks, never ending.
/// Keeps what it delivered so a test can measure the same samples.
final class LiveTone: AudioSource, @unchecked Sendable {
    let format = AudioFormat.cdMono
    private let lock = NSCondition()
    private var samples: [Int16] = []

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        let start = samples.count
        for i in 0..<buffer.count {
            // A slowly rising amplitude, so which samples were measured matters.
            let amplitude = 0.2 + 0.1 * Double((start + i) % 100_000) / 100_000
            buffer[i] = pcm16(Float(amplitude * sin(2 * Double.pi * 1000 * Double(start + i) / 44_100)))
        }
        samples.append(contentsOf: buffer)
        lock.broadcast()
        return buffer.count
    }

    var delivered: [Int16] { lock.lock(); defer { lock.unlock() }; return samples }
    var deliveredFrames: Int { lock.lock(); defer { lock.unlock() }; return samples.count }

    func waitUntilDelivered(frames: Int) {
        lock.lock()
        while samples.count < frames { lock.wait() }
        lock.unlock()
    }
}
