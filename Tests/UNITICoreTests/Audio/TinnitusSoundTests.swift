import Foundation
import Testing
@testable import UNITICore

/// The sounds built around the person's tinnitus frequency.
@Suite("Tinnitus-frequency sounds", .timeLimit(.minutes(10)))
struct TinnitusSoundTests {
    @Test("the notch is at least 20 dB deep at the tinnitus frequency", arguments: [NoiseColor.white, .pink])
    func notchDepth(base: NoiseColor) throws {
        let centre = 2000.0
        let samples = try AudioTest.renderMono(.notched(base: base, centre: centre))
        let analyzer = AudioTest.spectrum(samples, of: 1)
        // The line the base noise follows, fitted on third-octave bands well outside the notch.
        let outside = analyzer.bands(fraction: 3, lowest: 200, highest: 10_000)
            .filter { abs(log2($0.centre / centre)) >= 1 }
        let fit = SpectrumAnalyzer.slope(of: outside)
        let expected = fit.at1k + fit.perOctave * log2(centre / 1000)
        let inside = analyzer.meanDensityDB(from: centre / pow(2, 1.0 / 6), to: centre * pow(2, 1.0 / 6))
        #expect(expected - inside >= 20, "notch only \(expected - inside) dB deep")
        // The edges of the octave are cut too, not only its centre.
        let edge = analyzer.meanDensityDB(from: centre * pow(2, 0.3), to: centre * pow(2, 0.4))
        #expect(expected - edge >= 20, "notch edge only \(expected - edge) dB deep")
    }

    @Test("narrow-band noise keeps its energy in the half octave around the frequency")
    func narrowBandConcentration() throws {
        let centre = 1500.0
        let samples = try AudioTest.renderMono(.narrowBand(centre: centre), frames: 1 << 15)
        let analyzer = AudioTest.spectrum(samples, of: 1)
        let total = analyzer.bandPower(from: 0, to: 22_050)
        let band = analyzer.bandPower(from: centre / pow(2, 0.25), to: centre * pow(2, 0.25))
        #expect(band / total >= 0.95, "only \(band / total) of the power in the band")
        let level = AudioTest.rmsDBFS(AudioTest.channel(samples, 0, of: 1))
        #expect(abs(level + 20) <= 0.5)
    }

    @Test("the tone is a pure sine at the tinnitus frequency")
    func toneFrequency() throws {
        let samples = try AudioTest.renderMono(.tone(frequency: 4000), frames: 1 << 14)
        let analyzer = AudioTest.spectrum(samples, of: 1)
        let band = analyzer.bandPower(from: 3950, to: 4050)
        #expect(band / analyzer.bandPower(from: 0, to: 22_050) >= 0.99)
        #expect(abs(AudioTest.rmsDBFS(AudioTest.channel(samples, 0, of: 1)) + 20) <= 0.1)
    }

    @Test("amplitude modulation has the requested depth at 10 Hz",
          arguments: [SoundRecipe.modulatedNoise(.white, rate: 10, depth: 0.5),
                      .modulatedNoise(.pink, rate: 10, depth: 0.8),
                      .modulatedTone(frequency: 1000, rate: 10, depth: 0.3)])
    func modulationDepth(recipe: SoundRecipe) throws {
        let depth: Double
        switch recipe {
        case .modulatedNoise(_, _, let d), .modulatedTone(_, _, let d): depth = d
        default: return
        }
        let samples = try AudioTest.renderMono(recipe, frames: 44_100)
        let left = AudioTest.channel(samples, 0, of: 1)
        // Power envelope in 10 ms windows; its 10 Hz component relative to its mean is
        // 2m / (1 + m²/2) for modulation depth m (after undoing the window's averaging).
        let window = 441
        let envelope = stride(from: 0, to: left.count - window + 1, by: window).map { start in
            left[start..<(start + window)].reduce(0) { $0 + $1 * $1 } / Double(window)
        }
        let mean = envelope.reduce(0, +) / Double(envelope.count)
        var re = 0.0, im = 0.0
        for (i, value) in envelope.enumerated() {
            let phase = 2 * Double.pi * 10 * Double(i) * 0.01
            re += value * cos(phase); im += value * sin(phase)
        }
        let averaging = sin(Double.pi * 0.1) / (Double.pi * 0.1)
        let ratio = 2 * (re * re + im * im).squareRoot() / Double(envelope.count) / mean / averaging
        let measured = (2 - (4 - 2 * ratio * ratio).squareRoot()) / ratio
        #expect(abs(measured - depth) <= 0.05, "depth \(measured), wanted \(depth)")
    }

    @Test("frequencies outside the audible range are refused with a message")
    func badFrequency() {
        #expect(throws: UNITIError.self) { try SoundGenerator(recipe: .tone(frequency: 30_000), seed: 1) }
        #expect(throws: UNITIError.self) { try SoundGenerator(recipe: .notched(base: .brown, centre: 1000), seed: 1) }
        #expect(throws: UNITIError.self) { try SoundGenerator(recipe: .modulatedNoise(.white, rate: 10, depth: 1.5), seed: 1) }
    }
}
