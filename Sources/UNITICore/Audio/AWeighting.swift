import Foundation

/// The A-weighting curve of IEC 61672-1: how much less loud a tone of a given frequency is
/// heard than one at 1 kHz. Grey noise follows its inverse, so that every band sounds equally
/// loud; a level meter can use it for dB(A).
public enum AWeighting {
    /// The weighting in dB at `frequency` Hz (0 dB at 1 kHz, about −19 dB at 100 Hz).
    public static func decibels(at frequency: Double) -> Double {
        let f2 = frequency * frequency
        let numerator = pow(12194.0, 2) * f2 * f2
        let denominator = (f2 + pow(20.6, 2))
            * ((f2 + pow(107.7, 2)) * (f2 + pow(737.9, 2))).squareRoot()
            * (f2 + pow(12194.0, 2))
        return 20 * log10(numerator / denominator) + 2.0
    }
}
