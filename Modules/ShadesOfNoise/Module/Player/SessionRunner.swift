import UNITICore

/// Moves audio from a source to a sink as the player engine says, block by block (4096
/// frames), until the engine pauses (end of file or loop) or the person interrupts.
/// Constant memory whatever the length: one block buffer.
public enum SessionRunner {
    public static let blockFrames = 4096

    /// - Parameters:
    ///   - audioClock: advanced by the frames rendered, when the session is rendered into a
    ///     file rather than played in real time.
    ///   - onBlock: called after each block (progress display).
    public static func run(engine: PlayerEngine, source: any AudioSource, sink: any AudioSink,
                           audioClock: AudioTimeClock?, onBlock: (PlayerEngine) -> Void = { _ in }) throws {
        let channels = sink.format.channels
        var buffer = [Int16](repeating: 0, count: blockFrames * channels)
        try buffer.withUnsafeMutableBufferPointer { buffer in
            while !Interrupt.isRequested {
                let frames = engine.advance(maxFrames: blockFrames)
                if frames == 0 { break }
                let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(frames * channels)])
                let read = try source.read(into: block)
                try sink.write(UnsafeBufferPointer(rebasing: buffer[0..<(read * channels)]))
                audioClock?.advance(frames: frames)
                onBlock(engine)
            }
        }
        engine.pause()
    }
}
