/// Where rendered audio goes: the sound card (ALSA), a WAV file, or nowhere.
///
/// The player writes interleaved 16-bit frames to a sink and does not care which it is; that
/// is what lets `son play --out FILE.wav` and the tests run the same code as real playback on
/// a machine without a sound card.
public protocol AudioSink: AnyObject {
    var format: AudioFormat { get }
    /// Writes interleaved frames; a device sink blocks until the device has room.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    /// Plays out or flushes what was written and releases the sink.
    func finish() throws
}

/// Renders into a WAV file (the `--out FILE.wav` of the player).
public final class WAVFileSink: AudioSink {
    private let writer: WAVWriter
    public var format: AudioFormat { writer.format }
    public var path: String { writer.path }
    public var framesWritten: Int { writer.framesWritten }

    public init(path: String, format: AudioFormat) throws {
        writer = try WAVWriter(path: path, format: format)
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try writer.write(samples)
    }

    public func finish() throws {
        try writer.close()
    }
}

/// Discards everything, counting the frames (dry runs and tests).
public final class NullSink: AudioSink {
    public let format: AudioFormat
    public private(set) var framesWritten = 0

    public init(format: AudioFormat) {
        self.format = format
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        framesWritten += samples.count / format.channels
    }

    public func finish() throws {}
}

/// Opens where a session's audio goes: a WAV file when `outputPath` is given, else the ALSA
/// device (`device`, or "default"). Without a device the error says so in one line and
/// suggests `--out FILE.wav`.
public enum AudioOutput {
    public static func open(outputPath: String?, device: String? = nil, format: AudioFormat) throws -> any AudioSink {
        if let outputPath {
            return try WAVFileSink(path: outputPath, format: format)
        }
        return try ALSADevice.openPlayback(name: device ?? "default", format: format)
    }
}
