import Foundation

/// Plays a WAV file over and over without a click at the seam, in constant memory.
///
/// The last `crossfade` frames of each pass are mixed with the first frames of the next with
/// equal-power curves (the file's end fading out while its beginning fades in), so the loop
/// has period `frameCount − crossfadeFrames` and no jump where the recording's end and start
/// do not match. The first pass starts at the true beginning.
public final class LoopingWAVSource: AudioSource {
    private let head: WAVReader   // the pass being played
    private let tail: WAVReader
    private let beginning: WAVReader
    public let crossfadeFrames: Int
    public var format: AudioFormat { head.format }
    /// Frames per loop after the first pass.
    public var period: Int { head.frameCount - crossfadeFrames }
    private var headBlock: [Int16] = []
    private var tailBlock: [Int16] = []

    /// - Parameter crossfadeSeconds: length of the seam (shortened for very short files).
    public init(path: String, crossfadeSeconds: Double = 0.25) throws {
        head = try WAVReader(path: path)
        tail = try WAVReader(path: path)
        beginning = try WAVReader(path: path)
        guard head.frameCount >= 2 else {
            throw UNITIError(L("core.audio.tooShortToLoop", ["path": path]))
        }
        crossfadeFrames = min(head.format.frames(seconds: crossfadeSeconds), head.frameCount / 2)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        let channels = format.channels
        let wanted = buffer.count / channels
        var done = 0
        while done < wanted {
            // The seam begins where the head reader reaches the start of the crossfade region.
            let seamStart = head.frameCount - crossfadeFrames
            if head.framePosition >= seamStart {
                // Mix the remaining end (tail fading out) with the beginning (fading in).
                let seamPosition = head.framePosition - seamStart
                let count = min(wanted - done, crossfadeFrames - seamPosition)
                if headBlock.count < count * channels {
                    headBlock = [Int16](repeating: 0, count: count * channels)
                    tailBlock = [Int16](repeating: 0, count: count * channels)
                }
                tail.seek(toFrame: head.framePosition)
                beginning.seek(toFrame: seamPosition)
                _ = tailBlock.withUnsafeMutableBufferPointer { tail.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<(count * channels)])) }
                _ = headBlock.withUnsafeMutableBufferPointer { beginning.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<(count * channels)])) }
                for frame in 0..<count {
                    let x = (Double(seamPosition + frame) + 0.5) / Double(crossfadeFrames)
                    let fadeIn = sin(x * Double.pi / 2), fadeOut = cos(x * Double.pi / 2)
                    for c in 0..<channels {
                        let mixed = Double(tailBlock[frame * channels + c]) * fadeOut + Double(headBlock[frame * channels + c]) * fadeIn
                        buffer[(done + frame) * channels + c] = Int16(max(-32768, min(32767, mixed.rounded())))
                    }
                }
                done += count
                head.seek(toFrame: head.framePosition + count)
                if head.framePosition >= head.frameCount {
                    // The beginning has been played through the seam: continue after it.
                    head.seek(toFrame: crossfadeFrames)
                }
            } else {
                let count = min(wanted - done, seamStart - head.framePosition)
                let read = head.read(into: UnsafeMutableBufferPointer(rebasing: buffer[(done * channels)..<((done + count) * channels)]))
                if read == 0 { break }
                done += read
            }
        }
        return done
    }
}
