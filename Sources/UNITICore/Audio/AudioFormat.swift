/// The sample format of everything the audio service renders, plays and records: linear PCM,
/// 16-bit signed little-endian, interleaved channels.
///
/// One format keeps every path (generator → file, generator → ALSA, microphone → level meter)
/// free of conversions; 44.1 kHz stereo is what the Shades Of Noise sounds use.
public struct AudioFormat: Sendable, Hashable, Codable {
    public let sampleRate: Int
    public let channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// 44.1 kHz, two channels: the format of every generated sound.
    public static let cdStereo = AudioFormat(sampleRate: 44_100, channels: 2)
    /// 44.1 kHz mono: what ambient-level capture asks the microphone for.
    public static let cdMono = AudioFormat(sampleRate: 44_100, channels: 1)

    public static let bitsPerSample = 16
    public var bytesPerFrame: Int { channels * 2 }
    public var bytesPerSecond: Int { sampleRate * bytesPerFrame }

    /// Frames in `seconds` (rounded to the nearest frame).
    public func frames(seconds: Double) -> Int {
        Int((seconds * Double(sampleRate)).rounded())
    }
}

/// Converts floats in [-1, 1] to 16-bit samples (clamped), the one place where that rounding
/// happens.
@inlinable
public func pcm16(_ value: Float) -> Int16 {
    let scaled = value * 32767
    guard scaled == scaled else { return 0 } // NaN: silence rather than a crash
    if scaled >= 32767 { return 32767 }
    if scaled <= -32768 { return -32768 }
    return Int16(scaled.rounded(.toNearestOrEven))
}
