import Foundation
import UNITICore

/// Renders a ``Ringtone`` to 16-bit mono samples (additive synthesis: each note is a sum of
/// partials under an attack/decay/release envelope, optionally pulsed), to play through the
/// core's audio sinks or write with its WAV writer.
///
/// Module-local because the core's generators make noises and steady tones, not short melodic
/// patterns; deterministic, so the same tone always yields the same samples.
public struct RingtoneSynthesizer: Sendable {
    public let format: AudioFormat
    /// Peak level of the loudest moment, in dBFS.
    public let peakDBFS: Double

    public init(format: AudioFormat = .cdMono, peakDBFS: Double = -6) {
        self.format = AudioFormat(sampleRate: format.sampleRate, channels: 1)
        self.peakDBFS = peakDBFS
    }

    public func render(_ tone: Ringtone) -> [Int16] {
        let rate = Double(format.sampleRate)
        var mix = [Double](repeating: 0, count: Int((tone.length + 0.05) * rate))
        let ratios = tone.partialRatios ?? tone.harmonics.indices.map { Double($0 + 1) }
        for note in tone.notes {
            let first = Int(note.start * rate)
            let count = Int(note.duration * rate)
            for i in 0..<count where first + i < mix.count {
                let t = Double(i) / rate
                var envelope = min(1, t / max(tone.attack, 1e-4)) * min(1, (note.duration - t) / max(tone.release, 1e-4))
                if tone.decay > 0 { envelope *= exp(-tone.decay * t) }
                if tone.pulseRate > 0 { envelope *= 0.5 * (1 - cos(2 * .pi * tone.pulseRate * t)) }
                var sample = 0.0
                for (amplitude, ratio) in zip(tone.harmonics, ratios) where amplitude > 0 {
                    let frequency = note.frequency * ratio
                    guard frequency < rate / 2 else { continue }
                    sample += amplitude * sin(2 * .pi * frequency * t)
                }
                mix[first + i] += envelope * sample
            }
        }
        let peak = mix.map(abs).max() ?? 0
        let gain = peak > 0 ? pow(10, peakDBFS / 20) / peak : 0
        return mix.map { pcm16(Float($0 * gain)) }
    }
}
