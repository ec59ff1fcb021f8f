import Foundation
import Testing
@testable import UNITICore

/// The colours' spectra between 100 Hz and 10 kHz (octave bands 125 Hz … 8 kHz).
@Suite("Noise colours", .timeLimit(.minutes(10)))
struct NoiseSpectrumTests {
    @Test("each colour's spectral slope is within 0.5 dB per octave of its target", arguments: NoiseColor.allCases)
    func slopeMatchesTarget(color: NoiseColor) throws {
        let samples = try AudioTest.renderMono(.noise(color))
        let bands = AudioTest.spectrum(samples, of: 1).bands(fraction: 1, lowest: 125, highest: 8000)
        // Grey noise follows the inverse A-weighting: adding the weighting back makes it flat.
        let weighting: (Double) -> Double = color == .grey ? { AWeighting.decibels(at: $0) } : { _ in 0 }
        let fit = SpectrumAnalyzer.slope(of: bands, weighting: weighting)
        #expect(abs(fit.perOctave - color.slopePerOctave) <= 0.5, "slope \(fit.perOctave) dB/oct for \(color)")
        // No octave strays from the target line (same level at 1 kHz) by more than 1 dB.
        for band in bands {
            let target = fit.at1k + color.slopePerOctave * log2(band.centre / 1000)
            let deviation = band.densityDB + weighting(band.centre) - target
            #expect(abs(deviation) <= 1.0, "\(color) band \(Int(band.centre)) Hz off by \(deviation) dB")
        }
    }

    @Test("every colour is rendered at -20 dBFS RMS", arguments: NoiseColor.allCases)
    func levelIsNormalized(color: NoiseColor) throws {
        let samples = try AudioTest.renderMono(.noise(color), frames: 1 << 16)
        let level = AudioTest.rmsDBFS(AudioTest.channel(samples, 0, of: 1))
        // Brown noise is dominated by its slowest components, so a 1.5 s excerpt wanders more.
        let tolerance = color == .brown ? 1.5 : 0.5
        #expect(abs(level + 20) <= tolerance, "\(color) at \(level) dBFS")
    }
}
