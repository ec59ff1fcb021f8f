import Foundation

/// A reminder tone of Track Your Tinnitus (thesis FR4), described by its sound rather than
/// stored as a file: notes with their pitch and timing, a timbre (harmonic amplitudes) and an
/// envelope. Several tones are low and pulsed, because a person with a high-pitched tinnitus
/// may not hear a high, steady chime over it.
public struct Ringtone: Sendable, Hashable {
    public struct Note: Sendable, Hashable {
        /// Fundamental in Hz.
        public let frequency: Double
        /// Seconds from the start of the pattern.
        public let start: Double
        public let duration: Double
    }

    public let name: String
    public let notes: [Note]
    /// Amplitude of harmonic n+1 (the fundamental first); `partialRatios` overrides the ratios
    /// for inharmonic (bell-like) timbres.
    public let harmonics: [Double]
    public let partialRatios: [Double]?
    /// Attack and release in seconds; `decay` > 0 makes a struck sound fade exponentially.
    public let attack: Double
    public let release: Double
    public let decay: Double
    /// Amplitude modulation in Hz (0 for none): the pulsing of the low tones.
    public let pulseRate: Double

    /// The lowest fundamental, for listings ("low", "mid", "high").
    public var lowestFrequency: Double { notes.map(\.frequency).min() ?? 0 }
    public var length: Double { notes.map { $0.start + $0.duration }.max() ?? 0 }

    /// The default tone.
    public static let standardName = "chime"

    public static func named(_ name: String) -> Ringtone? {
        catalogue.first { $0.name == name.lowercased() }
    }

    /// Seven tones across pitch ranges, timbres and rhythms.
    public static let catalogue: [Ringtone] = [
        Ringtone(name: "chime", notes: sequence([(1318.5, 0.35), (987.8, 0.6)], gap: 0.05),
                 harmonics: [1, 0.3, 0.1], partialRatios: nil, attack: 0.005, release: 0.05, decay: 3, pulseRate: 0),
        Ringtone(name: "low-pulse", notes: sequence(Array(repeating: (196.0, 0.18), count: 6), gap: 0.12),
                 harmonics: [1, 0, 0.33, 0, 0.2, 0, 0.14], partialRatios: nil, attack: 0.01, release: 0.02, decay: 0, pulseRate: 0),
        Ringtone(name: "deep-drum", notes: sequence([(98.0, 0.35), (98.0, 0.15), (98.0, 0.15), (130.8, 0.5)], gap: 0.1),
                 harmonics: [1, 0.5, 0.25, 0.12], partialRatios: nil, attack: 0.002, release: 0.05, decay: 9, pulseRate: 0),
        Ringtone(name: "marimba", notes: sequence([(440.0, 0.2), (554.4, 0.2), (659.3, 0.2), (880.0, 0.45)], gap: 0.03),
                 harmonics: [1, 0, 0, 0.4], partialRatios: nil, attack: 0.003, release: 0.04, decay: 6, pulseRate: 0),
        Ringtone(name: "buzz", notes: sequence([(311.1, 0.12), (311.1, 0.12), (311.1, 0.12), (0, 0.3), (311.1, 0.12), (311.1, 0.12), (311.1, 0.12)], gap: 0.06),
                 harmonics: (1...10).map { 1 / Double($0) }, partialRatios: nil, attack: 0.005, release: 0.01, decay: 0, pulseRate: 0),
        Ringtone(name: "bell", notes: sequence([(2093.0, 1.4)], gap: 0),
                 harmonics: [1, 0.6, 0.4, 0.25], partialRatios: [1, 2.76, 5.4, 8.93], attack: 0.002, release: 0.1, decay: 2.5, pulseRate: 0),
        Ringtone(name: "low-horn", notes: sequence([(146.8, 0.7), (110.0, 0.9)], gap: 0.15),
                 harmonics: [1, 0.7, 0.5, 0.35, 0.2, 0.1], partialRatios: nil, attack: 0.12, release: 0.15, decay: 0, pulseRate: 6),
    ]

    /// Notes one after another, (frequency, duration) with a pause between; frequency 0 is a rest.
    private static func sequence(_ notes: [(Double, Double)], gap: Double) -> [Note] {
        var start = 0.0
        var result: [Note] = []
        for (frequency, duration) in notes {
            if frequency > 0 { result.append(Note(frequency: frequency, start: start, duration: duration)) }
            start += duration + gap
        }
        return result
    }
}
