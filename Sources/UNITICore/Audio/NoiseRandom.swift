/// The random source of the noise generators: xoshiro256** seeded through SplitMix64.
///
/// Fast (a few cycles per pair of samples), with a period far beyond any session, and fully
/// determined by its seed, so the same seed renders the same bytes on every machine. Each
/// channel gets its own stream (`stream:`), which is what decorrelates left and right.
public struct NoiseRandom: Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The unused low half of the last draw when a block had an odd length, so that the
    /// stream does not depend on how it was cut into blocks.
    private var spare: Float = 0
    private var hasSpare = false

    public init(seed: UInt64, stream: UInt64 = 0) {
        var mix = seed ^ (stream &* 0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03
        func splitMix() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    @inline(__always)
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A uniform value in [0, 1).
    @inline(__always)
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Fills `buffer` with uniform white noise in [-1, 1) (variance 1/3).
    @inline(__always)
    public mutating func fillUniform(_ buffer: UnsafeMutableBufferPointer<Float>) {
        let count = buffer.count
        var i = 0
        if hasSpare, count > 0 {
            buffer[0] = spare
            hasSpare = false
            i = 1
        }
        while i + 1 < count {
            let r = next()
            buffer[i] = Float(Int32(truncatingIfNeeded: r >> 32)) * 0x1.0p-31
            buffer[i + 1] = Float(Int32(truncatingIfNeeded: r)) * 0x1.0p-31
            i += 2
        }
        if i < count {
            let r = next()
            buffer[i] = Float(Int32(truncatingIfNeeded: r >> 32)) * 0x1.0p-31
            spare = Float(Int32(truncatingIfNeeded: r)) * 0x1.0p-31
            hasSpare = true
        }
    }

    /// Variance of the values `fillUniform` writes.
    public static let uniformVariance = 1.0 / 3.0
}
