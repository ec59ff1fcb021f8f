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

    /// Adds audio read from `source` block by block: up to `limit` frames (to the source's end
    /// when nil), and only while `continuing()` holds, so a capture thread can be told to stop
    /// between blocks. Returns the frames added. The one loop that turns a source into a level
    /// (a file, a generator, the microphone).
    @discardableResult
    public mutating func add(from source: any AudioSource, frames limit: Int? = nil,
                             while continuing: () -> Bool = { true }) throws -> Int {
        let channels = source.format.channels
        let blockFrames = 4096
        var block = [Int16](repeating: 0, count: blockFrames * channels)
        var added = 0
        while continuing() {
            let wanted = min(blockFrames, limit.map { $0 - added } ?? blockFrames)
            if wanted <= 0 { break }
            let frames = try block.withUnsafeMutableBufferPointer { buffer in
                try source.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(wanted * channels)]))
            }
            if frames == 0 { break }
            block.withUnsafeBufferPointer { add(UnsafeBufferPointer(rebasing: $0[0..<(frames * channels)])) }
            added += frames
        }
        return added
    }

    /// The RMS level in dBFS of `seconds` of audio from `source`, or of all of it when nil
    /// (a recording); throws when the source gave no sound at all.
    public static func measure(_ source: any AudioSource, seconds: Double? = nil) throws -> Double {
        var meter = LevelMeter()
        try meter.add(from: source, frames: seconds.map { source.format.frames(seconds: $0) })
        guard meter.sampleCount > 0 else {
            throw UNITIError(L("core.audio.noSamples"))
        }
        return meter.rmsDBFS
    }
}
