import UNITICore

/// Audio from memory: the given interleaved samples once, then the end. Tests hand it to code
/// that measures or plays a source, and compare with the samples they made.
public final class SampleSource: AudioSource {
    public let format: AudioFormat
    private let samples: [Int16]
    private var position = 0

    public init(_ samples: [Int16], format: AudioFormat = .cdMono) {
        self.samples = samples
        self.format = format
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        let count = min(buffer.count / format.channels, (samples.count - position) / format.channels) * format.channels
        for i in 0..<count { buffer[i] = samples[position + i] }
        position += count
        return count / format.channels
    }
}
