import Foundation

/// Estimates the power spectrum of a signal (Welch's method: Hann-windowed segments with 50 %
/// overlap, averaged), sums it into octave or third-octave bands and fits a slope.
///
/// The tests use it to check every generated sound against its target (slope per octave,
/// notch depth, band concentration); it works on a stream of blocks, so it can also analyse a
/// long file in constant memory.
public final class SpectrumAnalyzer {
    public let sampleRate: Int
    public let segmentLength: Int
    private let fft: FFT
    private let window: [Double]
    private let windowPower: Double
    private var buffer: [Double] = []
    private var sums: [Double]
    public private(set) var segmentCount = 0

    /// - Parameter segmentLength: FFT size (a power of two); the frequency resolution is
    ///   sampleRate / segmentLength.
    public init(sampleRate: Int, segmentLength: Int = 4096) {
        self.sampleRate = sampleRate
        self.segmentLength = segmentLength
        fft = FFT(size: segmentLength)
        window = (0..<segmentLength).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(segmentLength)) }
        windowPower = window.reduce(0) { $0 + $1 * $1 }
        sums = [Double](repeating: 0, count: segmentLength / 2 + 1)
        buffer.reserveCapacity(segmentLength)
    }

    /// Adds samples of one channel (floats in [-1, 1]).
    public func add<S: Sequence>(_ samples: S) where S.Element == Double {
        for sample in samples {
            buffer.append(sample)
            if buffer.count == segmentLength {
                analyseSegment()
                buffer.removeFirst(segmentLength / 2)
            }
        }
    }

    /// Adds one channel of interleaved 16-bit samples.
    public func add(pcm samples: [Int16], channel: Int = 0, channels: Int = 1) {
        add(stride(from: channel, to: samples.count, by: channels).lazy.map { Double(samples[$0]) / 32768 })
    }

    private func analyseSegment() {
        var re = [Double](repeating: 0, count: segmentLength)
        var im = [Double](repeating: 0, count: segmentLength)
        for i in 0..<segmentLength { re[i] = buffer[i] * window[i] }
        fft.transform(real: &re, imag: &im)
        for k in 0...segmentLength / 2 {
            sums[k] += re[k] * re[k] + im[k] * im[k]
        }
        segmentCount += 1
    }

    /// One-sided power spectral density per bin (power per Hz), averaged over the segments.
    public var density: [Double] {
        guard segmentCount > 0 else { return sums.map { _ in 0 } }
        let scale = 1 / (Double(segmentCount) * windowPower * Double(sampleRate))
        return sums.enumerated().map { k, sum in
            let oneSided = (k == 0 || k == segmentLength / 2) ? 1.0 : 2.0
            return sum * scale * oneSided
        }
    }

    /// Frequency of bin `k` in Hz.
    public func frequency(ofBin k: Int) -> Double { Double(k) * Double(sampleRate) / Double(segmentLength) }

    /// Mean power density (dB re 1/Hz) between `low` and `high` Hz.
    public func meanDensityDB(from low: Double, to high: Double) -> Double {
        let d = density
        var total = 0.0, count = 0
        for k in 0..<d.count where frequency(ofBin: k) >= low && frequency(ofBin: k) < high {
            total += d[k]
            count += 1
        }
        return count == 0 ? -.infinity : 10 * log10(total / Double(count))
    }

    /// Total power (not density) between `low` and `high` Hz.
    public func bandPower(from low: Double, to high: Double) -> Double {
        let d = density
        let binWidth = Double(sampleRate) / Double(segmentLength)
        var total = 0.0
        for k in 0..<d.count where frequency(ofBin: k) >= low && frequency(ofBin: k) < high {
            total += d[k] * binWidth
        }
        return total
    }

    /// Bands of a fractional octave (1 = octave, 3 = third octave) with their centre and
    /// mean density in dB, for centres from `lowest` up to `highest` (powers of two from 1 kHz).
    public func bands(fraction: Int = 1, lowest: Double = 125, highest: Double = 8000) -> [Band] {
        var result: [Band] = []
        let first = Int((log2(lowest / 1000) * Double(fraction)).rounded())
        let last = Int((log2(highest / 1000) * Double(fraction)).rounded())
        for index in first...last {
            let centre = 1000 * pow(2, Double(index) / Double(fraction))
            let half = pow(2, 0.5 / Double(fraction))
            result.append(Band(centre: centre,
                               densityDB: meanDensityDB(from: centre / half, to: centre * half)))
        }
        return result
    }

    /// A band of `bands(fraction:)`.
    public struct Band: Sendable, Codable {
        public let centre: Double
        public let densityDB: Double
    }

    /// Least-squares slope of band densities in dB per octave, with the fit's intercept at 1 kHz.
    public static func slope(of bands: [Band], weighting: (Double) -> Double = { _ in 0 }) -> (perOctave: Double, at1k: Double) {
        let xs = bands.map { log2($0.centre / 1000) }
        let ys = bands.map { $0.densityDB + weighting($0.centre) }
        let n = Double(xs.count)
        let mx = xs.reduce(0, +) / n, my = ys.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) { sxy += (x - mx) * (y - my); sxx += (x - mx) * (x - mx) }
        let slope = sxx == 0 ? 0 : sxy / sxx
        return (slope, my - slope * mx)
    }
}
