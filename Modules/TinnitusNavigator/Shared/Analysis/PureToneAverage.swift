import Foundation

/// The pure-tone average of one ear: the mean threshold at 500, 1000, 2000 and 4000 Hz, the
/// four frequencies the WHO World report on hearing (2021) grades hearing loss by. Speech lies
/// mostly in this band, so the average says how well a person follows a conversation.
public enum PureToneAverage {
    /// The frequencies averaged (Hz).
    public static let frequencies = [500, 1000, 2000, 4000]

    /// The average of `ear` in `audiogram`, or nil when a frequency of the four was not
    /// measured for that ear (an average over three would look better than the ear is).
    public static func of(_ audiogram: Audiogram, ear: Ear) -> Double? {
        of(frequencies.map { audiogram.threshold(ear, at: $0) })
    }

    /// The average of the four thresholds, nil when one is missing.
    public static func of(_ thresholds: [Int?]) -> Double? {
        let known = thresholds.compactMap { $0 }
        guard known.count == frequencies.count, thresholds.count == frequencies.count else { return nil }
        return Double(known.reduce(0, +)) / Double(known.count)
    }
}
