import Foundation

/// Measures the RMS level of audio in dBFS, the way TrackYourTinnitus records the loudness
/// around the person while they answer (ambient noise level), and the way the tests check the
/// generators.
///
/// 0 dBFS is the RMS of a full-scale square wave (every sample at ±1); a full-scale sine reads
/// −3.01 dBFS. Silence reads `LevelMeter.floor` rather than −∞, so a stored level is always a
/// number.
public struct LevelMeter: Sendable {
    private var sumOfSquares = 0.0
    public private(set) var sampleCount = 0
    private var peak = 0.0

    public init() {}

    /// The lowest level reported (silence).
    public static let floor = -120.0

    public mutating func add(_ samples: UnsafeBufferPointer<Int16>) {
        var sum = 0.0
        var peak = self.peak
        for sample in samples {
            let x = Double(sample) / 32768
            sum += x * x
            peak = max(peak, abs(x))
        }
        sumOfSquares += sum
        sampleCount += samples.count
        self.peak = peak
    }

    public mutating func add(_ samples: [Int16]) {
        samples.withUnsafeBufferPointer { add($0) }
    }

    /// RMS of everything added, in dBFS.
    public var rmsDBFS: Double {
        guard sampleCount > 0, sumOfSquares > 0 else { return Self.floor }
        return max(Self.floor, 10 * log10(sumOfSquares / Double(sampleCount)))
    }

    /// The largest magnitude seen, in dBFS.
    public var peakDBFS: Double {
        peak > 0 ? max(Self.floor, 20 * log10(peak)) : Self.floor
    }

    /// Reads `seconds` of audio from `source` and returns its RMS level in dBFS.
    public static func measure(_ source: any AudioSource, seconds: Double) throws -> Double {
        var meter = LevelMeter()
        let format = source.format
        var remaining = format.frames(seconds: seconds)
        var block = [Int16](repeating: 0, count: 4096 * format.channels)
        while remaining > 0 {
            let frames = try block.withUnsafeMutableBufferPointer { buffer in
                try source.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(min(remaining, 4096) * format.channels)]))
            }
            if frames == 0 { break }
            block.withUnsafeBufferPointer { meter.add(UnsafeBufferPointer(rebasing: $0[0..<(frames * format.channels)])) }
            remaining -= frames
        }
        guard meter.sampleCount > 0 else {
            throw UNITIError(L("core.audio.noSamples"))
        }
        return meter.rmsDBFS
    }
}
