import Foundation

/// Reads a RIFF/WAVE file of 16-bit PCM block by block, in constant memory.
///
/// Unknown chunks (LIST, fact, ...) are skipped; other sample formats are refused with a message
/// naming the format found. A data size of 0 or one past the end of the file (a file whose
/// writer never closed it) is read as "up to the end of the file".
public final class WAVReader {
    public let path: String
    public let format: AudioFormat
    /// Number of frames in the data chunk.
    public let frameCount: Int
    private let file: UnsafeMutablePointer<FILE>
    private let dataOffset: Int
    private var position = 0

    public init(path: String) throws {
        self.path = path
        guard let file = fopen(path, "rb") else {
            throw UNITIError(L("core.audio.cannotRead", ["path": path, "reason": String(cString: strerror(errno))]))
        }
        self.file = file
        func fail(_ reason: String) -> UNITIError {
            fclose(file)
            return UNITIError(L("core.audio.notWAV", ["path": path, "reason": reason]))
        }
        func read(_ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            return fread(&bytes, 1, count, file) == count ? bytes : nil
        }
        func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
            UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
        }
        func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }

        guard let riff = read(12), String(decoding: riff[0..<4], as: UTF8.self) == "RIFF",
              String(decoding: riff[8..<12], as: UTF8.self) == "WAVE" else { throw fail("no RIFF/WAVE header") }
        var format: AudioFormat?
        var offset = 12
        while true {
            guard let chunk = read(8) else { throw fail("no data chunk") }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            let size = Int(u32(chunk, 4))
            offset += 8
            if id == "fmt " {
                guard size >= 16, let body = read(size + (size & 1)) else { throw fail("short fmt chunk") }
                let tag = u16(body, 0)
                let bits = u16(body, 14)
                // 0xFFFE (extensible) is accepted when it holds 16-bit PCM.
                guard tag == 1 || tag == 0xFFFE, bits == 16 else {
                    throw fail("format \(tag) with \(bits) bits; only 16-bit PCM is supported")
                }
                let channels = Int(u16(body, 2))
                guard channels > 0 else { throw fail("no channels") }
                format = AudioFormat(sampleRate: Int(u32(body, 4)), channels: channels)
                offset += size + (size & 1)
            } else if id == "data" {
                guard let format else { throw fail("data before fmt chunk") }
                fseek(file, 0, SEEK_END)
                let available = ftell(file) - offset
                let bytes = (size == 0 || size > available) ? available : size
                self.format = format
                self.frameCount = max(0, bytes) / format.bytesPerFrame
                self.dataOffset = offset
                fseek(file, offset, SEEK_SET)
                return
            } else {
                offset += size + (size & 1)
                guard fseek(file, offset, SEEK_SET) == 0 else { throw fail("truncated chunk \(id)") }
            }
        }
    }

    deinit { fclose(file) }

    /// The frame the next read starts at.
    public var framePosition: Int { position }

    /// Moves to `frame` (clamped to the data).
    public func seek(toFrame frame: Int) {
        position = min(max(0, frame), frameCount)
        fseek(file, dataOffset + position * format.bytesPerFrame, SEEK_SET)
    }

    /// Reads up to `buffer.count / channels` frames; returns the frames read (0 at the end).
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let wanted = min(buffer.count / format.channels, frameCount - position)
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        let samples = fread(base, 2, wanted * format.channels, file)
        let frames = samples / format.channels
        #if _endian(big)
        for i in 0..<(frames * format.channels) { base[i] = Int16(littleEndian: base[i]) }
        #endif
        position += frames
        return frames
    }

    /// Reads every remaining frame (for short files and tests).
    public func readAll() -> [Int16] {
        var samples = [Int16](repeating: 0, count: (frameCount - position) * format.channels)
        let frames = samples.withUnsafeMutableBufferPointer { read(into: $0) }
        return Array(samples.prefix(frames * format.channels))
    }
}
