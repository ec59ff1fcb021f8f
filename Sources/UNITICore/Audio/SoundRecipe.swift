/// What a generated sound is: the kinds of the Shades Of Noise catalogue that the program
/// synthesizes itself rather than playing from a recording.
///
/// A recipe plus a seed fully determines the sound; the catalogue (JSON) names a recipe and
/// its parameters, and the person's tinnitus frequency fills in `centre`/`frequency`.
public enum SoundRecipe: Sendable, Hashable {
    /// Noise with a power spectrum following a power of the frequency.
    case noise(NoiseColor)
    /// White or pink noise with a one-octave notch centred on `centre` (at least 20 dB deep).
    case notched(base: NoiseColor, centre: Double)
    /// White noise kept to the half octave around `centre`.
    case narrowBand(centre: Double)
    /// Noise whose amplitude pulses at `rate` Hz with `depth` 0…1.
    case modulatedNoise(NoiseColor, rate: Double, depth: Double)
    /// A sine at `frequency` whose amplitude pulses at `rate` Hz with `depth` 0…1.
    case modulatedTone(frequency: Double, rate: Double, depth: Double)
    /// A pure sine at `frequency` (the person's tinnitus frequency).
    case tone(frequency: Double)
    /// A procedurally synthesized natural texture.
    case texture(NaturalTexture)
}

/// The noise colours, named by how their power density changes with frequency.
public enum NoiseColor: String, Sendable, Hashable, CaseIterable, Codable {
    case white, pink, brown, blue, violet, grey

    /// The slope of the power spectral density in dB per octave (grey: 0 after adding the
    /// A-weighting, since it follows the inverse of that curve instead of a power law).
    public var slopePerOctave: Double {
        let perDoubling = 10 * log10(2.0) // 3.01 dB
        switch self {
        case .white, .grey: return 0
        case .pink: return -perDoubling
        case .brown: return -2 * perDoubling
        case .blue: return perDoubling
        case .violet: return 2 * perDoubling
        }
    }
}

/// Textures synthesized from noise, filters and random events; they imitate, and are named as
/// imitations of, the recordings (rain, waterfall) of the original app.
public enum NaturalTexture: String, Sendable, Hashable, CaseIterable, Codable {
    case rain, stream, waterfall, surf, wind
}

import Foundation
