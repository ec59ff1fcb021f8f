/// Where audio comes from: the microphone (ALSA capture), a WAV file, or a generator.
///
/// The ambient noise level of TrackYourTinnitus and TrackYourStress is measured from a source;
/// tests hand it a WAV file of known level instead of a microphone.
public protocol AudioSource: AnyObject {
    var format: AudioFormat { get }
    /// Reads up to `buffer.count / channels` interleaved frames; returns the frames read,
    /// 0 when the source has ended.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> Int
}

/// A WAV file read once from the start.
public final class WAVFileSource: AudioSource {
    private let reader: WAVReader
    public var format: AudioFormat { reader.format }

    public init(path: String) throws {
        reader = try WAVReader(path: path)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        reader.read(into: buffer)
    }
}

/// A generator never ends: as a source it yields as many frames as asked.
extension SoundGenerator: AudioSource {
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        let frames = buffer.count / format.channels
        render(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(frames * format.channels)]))
        return frames
    }
}
