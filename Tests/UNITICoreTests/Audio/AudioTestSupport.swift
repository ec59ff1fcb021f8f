import Foundation
@testable import UNITICore

/// Helpers shared by the audio tests: short renders, channel extraction, temporary files.
enum AudioTest {
    static let format = AudioFormat.cdStereo

    /// `frames` stereo frames of `recipe` with a fixed seed.
    static func render(_ recipe: SoundRecipe, frames: Int = 1 << 16, seed: UInt64 = 42) throws -> [Int16] {
        try SoundGenerator(recipe: recipe, seed: seed).render(frames: frames)
    }

    /// One channel only: half the work, for tests that look at a single channel's spectrum.
    static func renderMono(_ recipe: SoundRecipe, frames: Int = 1 << 16, seed: UInt64 = 42) throws -> [Int16] {
        try SoundGenerator(recipe: recipe, seed: seed, format: .cdMono).render(frames: frames)
    }

    static func channel(_ samples: [Int16], _ index: Int, of channels: Int = 2) -> [Double] {
        stride(from: index, to: samples.count, by: channels).map { Double(samples[$0]) / 32768 }
    }

    static func spectrum(_ samples: [Int16], channel: Int = 0, of channels: Int = 2, segment: Int = 4096) -> SpectrumAnalyzer {
        let analyzer = SpectrumAnalyzer(sampleRate: format.sampleRate, segmentLength: segment)
        analyzer.add(Self.channel(samples, channel, of: channels))
        return analyzer
    }

    static func rmsDBFS(_ values: [Double]) -> Double {
        10 * log10(values.reduce(0) { $0 + $1 * $1 } / Double(values.count))
    }

    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let ma = a.reduce(0, +) / Double(a.count), mb = b.reduce(0, +) / Double(b.count)
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) { sab += (x - ma) * (y - mb); saa += (x - ma) * (x - ma); sbb += (y - mb) * (y - mb) }
        return sab / (saa * sbb).squareRoot()
    }

    static func differences(_ values: [Double]) -> [Double] {
        zip(values.dropFirst(), values).map { $0 - $1 }
    }

    /// A path in a fresh temporary folder.
    static func temporaryPath(_ name: String) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-audio-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name).path
    }
}
