import Foundation
import Testing
@testable import UNITICore

@Suite("WAV files and level meter", .timeLimit(.minutes(10)))
struct WAVAndLevelTests {
    @Test("a WAV file reads back exactly what was written, in blocks")
    func roundTrip() throws {
        let path = AudioTest.temporaryPath("round.wav")
        let samples = try AudioTest.render(.noise(.white), frames: 10_001)
        let writer = try WAVWriter(path: path, format: .cdStereo)
        try writer.write(Array(samples[0..<5000]))
        try writer.write(Array(samples[5000...]))
        try writer.close()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 44 + samples.count * 2)
        let reader = try WAVReader(path: path)
        #expect(reader.format == .cdStereo)
        #expect(reader.frameCount == 10_001)
        #expect(reader.readAll() == samples)
        reader.seek(toFrame: 10_000)
        #expect(reader.readAll() == Array(samples.suffix(2)))
    }

    @Test("a file whose writer never closed is read up to its end")
    func unfinishedFile() throws {
        let path = AudioTest.temporaryPath("open.wav")
        do {
            let writer = try WAVWriter(path: path, format: .cdMono)
            try writer.write([Int16](repeating: 1000, count: 300))
            // Flush without patching the header, as after a crash.
            _ = writer.framesWritten
            try writer.close()
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.replaceSubrange(40..<44, with: [0, 0, 0, 0])
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try WAVReader(path: path).frameCount == 300)
    }

    @Test("a file that is not 16-bit PCM WAV is refused with a message")
    func refusesOtherFiles() throws {
        let path = AudioTest.temporaryPath("text.wav")
        try Data("not audio at all, just text".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: UNITIError.self) { try WAVReader(path: path) }
    }

    @Test("the level meter reads a recording of known RMS within 0.5 dB")
    func levelMeter() throws {
        // A 1 kHz sine of amplitude 0.25 has RMS 0.25/√2: −15.05 dBFS.
        let path = AudioTest.temporaryPath("sine.wav")
        let writer = try WAVWriter(path: path, format: .cdMono)
        let sine = (0..<44_100).map { pcm16(Float(0.25 * sin(2 * Double.pi * 1000 * Double($0) / 44_100))) }
        try writer.write(sine)
        try writer.close()
        let level = try LevelMeter.measure(WAVFileSource(path: path), seconds: 1)
        #expect(abs(level - 20 * log10(0.25 / 2.0.squareRoot())) <= 0.5)
        // The generators' noise at −20 dBFS reads as such too.
        var meter = LevelMeter()
        meter.add(try AudioTest.render(.noise(.pink), frames: 1 << 15))
        #expect(abs(meter.rmsDBFS + 20) <= 0.5)
        #expect(LevelMeter().rmsDBFS == LevelMeter.floor)
    }

    @Test("a whole recording is measured to its end: the level of every sample, not of the first block", arguments: [-10.0, -23.5, -40.0])
    func wholeRecording(level: Double) throws {
        // A quiet start and a sine at `level` after it, over several blocks and an odd length.
        let path = AudioTest.temporaryPath("whole.wav")
        let amplitude = pow(10, level / 20) * 2.0.squareRoot()
        let samples = [Int16](repeating: 3, count: 4096) + (0..<20_001).map { i in
            pcm16(Float(amplitude * sin(2 * .pi * 1000 * Double(i) / 44_100)))
        }
        let writer = try WAVWriter(path: path, format: .cdMono)
        try writer.write(samples)
        try writer.close()
        var meter = LevelMeter()
        meter.add(samples)
        let measured = try LevelMeter.measure(WAVFileSource(path: path))
        #expect(abs(measured - meter.rmsDBFS) < 1e-9)
        #expect(abs(measured - (level + 10 * log10(20_001.0 / 24_097))) < 0.1)
        #expect(try LevelMeter.measure(WAVFileSource(path: path), seconds: 0.05) < -80)
    }

    @Test("a looped recording has no click at the seam")
    func loopSeam() throws {
        // 0.3 s of a 440 Hz sine ending half a cycle off: played end-to-start it would jump.
        // The crossfade may raise the local slope a little (two phases adding), but no click.
        let path = AudioTest.temporaryPath("clip.wav")
        let frames = 13_280
        let clip = (0..<frames).map { pcm16(Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 44_100 + 0.3))) }
        let writer = try WAVWriter(path: path, format: .cdMono)
        try writer.write(clip)
        try writer.close()
        let rawJump = abs(Int(clip[0]) - Int(clip[frames - 1]))
        let maxStep = zip(clip, clip.dropFirst()).map { abs(Int($0) - Int($1)) }.max()!

        let source = try LoopingWAVSource(path: path, crossfadeSeconds: 0.05)
        var played = [Int16](repeating: 0, count: frames * 3)
        var done = 0
        while done < played.count {
            let n = try played.withUnsafeMutableBufferPointer {
                try source.read(into: UnsafeMutableBufferPointer(rebasing: $0[done..<min(done + 1000, $0.count)]))
            }
            #expect(n > 0)
            done += n
        }
        let loopedStep = zip(played, played.dropFirst()).map { abs(Int($0) - Int($1)) }.max()!
        #expect(rawJump > 4 * maxStep, "the test clip must have a discontinuity")
        #expect(loopedStep <= maxStep * 3 / 2, "step \(loopedStep) at the seam, \(maxStep) inside the clip")
        // After the first pass the loop repeats with its period.
        let period = source.period
        #expect(Array(played[frames..<(frames + 100)]) == Array(played[(frames + period)..<(frames + period + 100)]))
    }

    @Test("without an audio device, playback fails in one line that suggests --out")
    func noDevice() throws {
        guard ALSADevice.cardCount() == 0 else { return }
        do {
            _ = try AudioOutput.open(outputPath: nil, format: .cdStereo)
            Issue.record("a device opened on a machine without sound cards")
        } catch let error as UNITIError {
            #expect(error.message.contains("--out FILE.wav"))
            #expect(!error.message.contains("\n"))
        }
    }
}
