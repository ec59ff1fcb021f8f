import Foundation
import Testing
@testable import TrackYourTinnitus
import UNITICore

@Suite("Noise level display and ringtones (thesis FR4, FR6)", .timeLimit(.minutes(10)))
struct NoiseAndRingtoneTests {
    @Test("the calibration offset turns dBFS into an approximate dB SPL and says so")
    func calibration() {
        #expect(NoiseSettings().describe(-30).contains("dBFS"))
        let calibrated = NoiseSettings(calibrationOffset: 94).describe(-30)
        #expect(calibrated.contains("64.0") && calibrated.contains("dB SPL"))
    }

    @Test("at least six tones, pairwise distinct in dominant frequency or rhythm, some low and pulsed")
    func distinctTones() throws {
        let synthesizer = RingtoneSynthesizer()
        #expect(Ringtone.catalogue.count >= 6)
        var signatures: [String: String] = [:]
        for tone in Ringtone.catalogue {
            let samples = synthesizer.render(tone)
            let dominant = Self.dominantFrequency(samples, rate: 44_100)
            // The envelope at 50 ms resolution: where sound is on.
            let block = 2205
            let onsets = stride(from: 0, to: samples.count - block, by: block).map { start -> Character in
                var meter = LevelMeter()
                meter.add(Array(samples[start..<(start + block)]))
                return meter.rmsDBFS > -30 ? "#" : "."
            }
            let signature = "\(Int(dominant / 20))|\(String(onsets))"
            #expect(signatures[signature] == nil, "\(tone.name) sounds like \(signatures[signature] ?? "")")
            signatures[signature] = tone.name
        }
        let lowPulsed = Ringtone.catalogue.filter { $0.lowestFrequency < 250 && ($0.notes.count > 2 || $0.pulseRate > 0) }
        #expect(lowPulsed.count >= 2)
    }

    @Test("a tone written with --out is a WAV file of the tone's length")
    func writesWAV() throws {
        let fixture = try TinnitusFixture()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tyt-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try RingtoneCommand.Play.parse(["low-pulse", "--out", path]).run(in: fixture.context)
        let reader = try WAVReader(path: path)
        #expect(abs(Double(reader.frameCount) / 44_100 - Ringtone.named("low-pulse")!.length) < 0.1)
    }

    @Test("a due reminder plays the chosen ringtone, sample for sample; without an output device the terminal bell rings instead")
    func reminderPlaysChosenTone() throws {
        let fixture = try TinnitusFixture()
        try RingtoneCommand.Set.parse(["low-pulse"]).run(in: fixture.context)
        try NotifyCommand.Count.parse(["4"]).run(in: fixture.context)
        let rule = try #require(try fixture.module.reminderSource(fixture.context).rules.first)
        #expect(rule.tone == "low-pulse")
        let reminder = PlannedReminder(moduleID: "tyt", moduleName: "TrackYourTinnitus", ruleID: rule.id, questionnaireID: nil,
                                       date: fixture.clock.now, localDate: LocalDate(year: 2026, month: 9, day: 21),
                                       localTime: TimeOfDay(minutes: 600), command: rule.command, tone: rule.tone, sound: true)
        let module = fixture.module
        let fallback = CountingBell()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tyt-bell-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bell = ToneBell(tone: { module.reminderTone(named: $0.tone!) },
                            openOutput: { try WAVFileSink(path: path, format: $0) }, fallback: fallback, waits: true)
        bell.ring(for: reminder)
        #expect(fallback.count.value == 0)
        let reader = try WAVReader(path: path)
        var played = [Int16](repeating: 0, count: reader.frameCount)
        let read = played.withUnsafeMutableBufferPointer { reader.read(into: $0) }
        #expect(read == reader.frameCount)
        #expect(played == RingtoneSynthesizer().render(Ringtone.named("low-pulse")!))

        let noDevice = ToneBell(tone: { module.reminderTone(named: $0.tone!) },
                                openOutput: { _ in throw UNITIError("no sound card") }, fallback: fallback, waits: true)
        noDevice.ring(for: reminder)
        #expect(fallback.count.value == 1)
    }

    /// The strongest bin of the spectrum (plain DFT on a short excerpt at the loudest point).
    static func dominantFrequency(_ samples: [Int16], rate: Double) -> Double {
        let analyzer = SpectrumAnalyzer(sampleRate: Int(rate), segmentLength: 4096)
        analyzer.add(pcm: samples)
        let density = analyzer.density
        let peak = density.indices.dropFirst().max { density[$0] < density[$1] } ?? 0
        return analyzer.frequency(ofBin: peak)
    }
}

/// Counts how often the fallback bell rang.
final class CountingBell: ReminderBell {
    let count = LockedValue(0)
    func ring(for reminder: PlannedReminder) { count.withValue { $0 += 1 } }
}
