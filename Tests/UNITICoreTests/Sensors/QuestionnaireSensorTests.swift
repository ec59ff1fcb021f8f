import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// The sensors a questionnaire asks for, read by the engine while the person answers, with the
/// person's permission per sensor.
@Suite("Sensors while answering", .timeLimit(.minutes(10)))
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

    static func harness(gpsd: GPSDClient, location permission: SensorPermission?) throws -> ModuleHarness {
        let harness = try ModuleHarness([], input: ["yes"], gpsd: gpsd)
        try SensorPermissions(settings: harness.services.settings).set(permission, for: .location)
        return harness
    }

    @Test("with the location allowed, the sheet gets the position a real gpsd reports (within 50 m of the log's), stored with it")
    func allowedLocationGoesIntoTheSheet() throws {
        let ulm = GPSFakeTests.ulm
        let gps = try GPSFake(latitude: ulm.latitude, longitude: ulm.longitude, altitude: ulm.altitude)
        let harness = try Self.harness(gpsd: gps.client(timeout: 20), location: .allowed)
        let result = try Self.answer(Self.definition([.location]), in: harness)

        let reading = try #require(result.sheet.sensors?.location)
        #expect(GPSFakeTests.metres(from: (reading.latitude, reading.longitude), to: (ulm.latitude, ulm.longitude)) < 50)
        #expect(result.sheet.sensors?.microphone == nil)
        // The fix's time (the log starts at the harness's now, which a first fix without a date
        // takes instead), with Berlin's offset.
        #expect(reading.measuredAt.offsetSeconds == 7200)
        #expect(abs(reading.measuredAt.date.timeIntervalSince(ModuleHarness.defaultNow)) < 10)
        let stored = try #require(try AnswerSheetStore(database: harness.database, clock: harness.clock).sheet(id: result.sheet.id))
        #expect(stored.sensors == result.sheet.sensors)
        #expect(Self.noticeLines(harness.output).isEmpty)
    }

    @Test("without permission gpsd is never connected to, no location is kept, and one line says how to allow it",
          arguments: [nil, SensorPermission.refused])
    func noPermissionNoLocation(permission: SensorPermission?) throws {
        let listener = try LoopbackListener()
        let harness = try Self.harness(gpsd: GPSDClient(endpoint: listener.endpoint, timeout: 1), location: permission)
        let result = try Self.answer(Self.definition([.location]), in: harness)

        #expect(listener.accept(within: 0.2) == nil)
        #expect(result.sheet.sensors == nil)
        #expect(result.sheet.values == ["hears": .yesNo(true)])
        let notices = Self.noticeLines(harness.output)
        #expect(notices.count == 1)
        #expect(notices.first?.hasPrefix("Your location is not measured: ") == true)
        #expect(notices.first?.contains("type 'sensors allow location' to allow it") == true)
        #expect(notices.first?.contains("you refused it") == (permission == .refused))
    }

    @Test("with no gpsd one line says why, and the answers are still stored without a location")
    func noGPSDStillStoresAnswers() throws {
        let harness = try Self.harness(gpsd: ModuleHarness.noGPSD, location: .allowed)
        let result = try Self.answer(Self.definition([.location]), in: harness)

        #expect(result.sheet.sensors == nil)
        let stored = try AnswerSheetStore(database: harness.database, clock: harness.clock).sheets(owner: "tys")
        #expect(stored.map(\.values) == [["hears": .yesNo(true)]])
        let notices = Self.noticeLines(harness.output)
        #expect(notices.count == 1)
        #expect(notices.first?.hasPrefix("Your location is not measured: no gpsd at 127.0.0.1:1 (") == true)
    }

    @Test("a gpsd without a fix costs at most its timeout when the sheet is finished, then one line says so")
    func noFixCostsAtMostTheTimeout() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.send(GPSDClientTests.mode1)])
        let harness = try Self.harness(gpsd: GPSDClient(endpoint: gpsd.endpoint, timeout: 1), location: .allowed)
        let (result, took) = try GPSDClientTests.timed { try Self.answer(Self.definition([.location]), in: harness) }

        #expect(result.sheet.sensors == nil)
        #expect(took < .milliseconds(1500))
        #expect(Self.noticeLines(harness.output)
            == ["Your location is not measured: gpsd at \(gpsd.endpoint) reported no position within 1 s (the receiver may have no view of the sky)."])
    }

    @Test("microphone and location together: both readings go into the one sheet")
    func microphoneAndLocationTogether() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.send(GPSDClientTests.mode3)])
        let harness = try ModuleHarness([], input: ["yes"], microphone: ModuleHarness.microphone(hearing: Self.heard),
                                        gpsd: GPSDClient(endpoint: gpsd.endpoint, timeout: 2))
        let permissions = SensorPermissions(settings: harness.services.settings)
        try permissions.set(.allowed, for: .microphone)
        try permissions.set(.allowed, for: .location)
        let result = try Self.answer(Self.definition([.microphoneLevel, .location]), in: harness)

        let sensors = try #require(result.sheet.sensors)
        #expect(sensors.microphone.map { abs($0.dbfs - Self.level(of: Self.heard)) < 0.01 } == true)
        #expect(sensors.location == LocationReading(latitude: 48.4011, longitude: 9.9876, accuracyMeters: 17.1, altitudeMeters: 480,
                                                    measuredAt: OffsetTimestamp(Date(timeIntervalSince1970: 1_790_078_402), in: ModuleHarness.berlin)))
        #expect(Self.noticeLines(harness.output).isEmpty)
    }

    @Test("a sheet left unfinished stops the location reading at once and keeps no location")
    func abandonedSheetStopsTheLocation() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting)
        let harness = try ModuleHarness([], input: [], gpsd: GPSDClient(endpoint: gpsd.endpoint, timeout: 5))
        try SensorPermissions(settings: harness.services.settings).set(.allowed, for: .location)
        #expect(throws: PromptCancelled.self) { try Self.answer(Self.definition([.location]), in: harness) }
        let left = ContinuousClock.now
        gpsd.waitUntilFinished()
        let closedAt = try #require(gpsd.clientClosedAt.value)
        #expect(closedAt - left < .milliseconds(500))
    }

    @Test("the sensors listing connects to gpsd briefly: available when one listens, else the reason")
    func locationUnavailability() throws {
        let listener = try LoopbackListener()
        let reachable = try Self.harness(gpsd: GPSDClient(endpoint: listener.endpoint), location: nil)
        #expect(QuestionnaireSensors(services: reachable.services).unavailability(of: .location) == nil)
        let unreachable = try Self.harness(gpsd: ModuleHarness.noGPSD, location: nil)
        let reason = QuestionnaireSensors(services: unreachable.services).unavailability(of: .location)
        #expect(reason?.hasPrefix("no gpsd at 127.0.0.1:1 (") == true)
    }

    @Test("a questionnaire asking for no sensor opens none, connects to no gpsd, and says nothing about sensors")
    func noSensorsNoNotice() throws {
        let opened = LockedValue(0)
        let microphone = SoundInput(isLive: true) { opened.withValue { $0 += 1 }; return SampleSource(Self.heard) }
        let listener = try LoopbackListener()
        let harness = try ModuleHarness([], input: ["yes"], microphone: microphone, gpsd: GPSDClient(endpoint: listener.endpoint))
        let permissions = SensorPermissions(settings: harness.services.settings)
        try permissions.set(.allowed, for: .microphone)
        try permissions.set(.allowed, for: .location)
        let result = try Self.answer(Self.definition([]), in: harness)
        #expect(opened.value == 0)
        #expect(listener.accept(within: 0.2) == nil)
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
