import Foundation

/// Writes a RIFF/WAVE file of 16-bit PCM while it is being rendered, in constant memory.
///
/// The header is written first with placeholder sizes and patched when the writer is closed,
/// so an hour of audio never has to be held in memory. A file left by a killed process still
/// has a valid header shape (sizes 0), which `WAVReader` reads as "data up to end of file".
public final class WAVWriter {
    public let format: AudioFormat
    public let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private var dataBytes: UInt64 = 0

    /// Creates (or replaces) the file at `path`.
    public init(path: String, format: AudioFormat) throws {
        self.path = path
        self.format = format
        guard let handle = fopen(path, "wb") else {
            throw UNITIError(L("core.audio.cannotWrite", ["path": path, "reason": String(cString: strerror(errno))]))
        }
        self.file = handle
        // A 1 MiB stdio buffer: large sequential writes without holding the whole file.
        setvbuf(handle, nil, _IOFBF, 1 << 20)
        try writeHeader(dataBytes: 0)
    }

    deinit {
        if file != nil { try? close() }
    }

    /// Frames written so far.
    public var framesWritten: Int { Int(dataBytes) / format.bytesPerFrame }

    /// Appends interleaved frames.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let file else { throw UNITIError("internal: WAV file \(path) already closed") }
        guard let base = samples.baseAddress, samples.count > 0 else { return }
        #if _endian(big)
        let swapped = samples.map { $0.littleEndian }
        let written = swapped.withUnsafeBufferPointer { fwrite($0.baseAddress, 2, $0.count, file) }
        #else
        let written = fwrite(base, 2, samples.count, file)
        #endif
        guard written == samples.count else {
            throw UNITIError(L("core.audio.cannotWrite", ["path": path, "reason": String(cString: strerror(errno))]))
        }
        dataBytes += UInt64(samples.count * 2)
    }

    public func write(_ samples: [Int16]) throws {
        try samples.withUnsafeBufferPointer { try write($0) }
    }

    /// Patches the sizes into the header and closes the file.
    public func close() throws {
        guard let file else { return }
        defer { self.file = nil }
        // RIFF sizes are 32-bit: a longer file keeps the maximum, which readers treat as "to the end".
        let ok = fseek(file, 0, SEEK_SET) == 0
        if ok { try writeHeader(dataBytes: dataBytes) }
        let closed = fclose(file) == 0
        guard ok, closed else {
            throw UNITIError(L("core.audio.cannotWrite", ["path": path, "reason": String(cString: strerror(errno))]))
        }
    }

    private func writeHeader(dataBytes: UInt64) throws {
        guard let file else { return }
        let data = UInt32(min(dataBytes, UInt64(UInt32.max - 36)))
        var header = [UInt8]()
        header.reserveCapacity(44)
        func append(_ text: String) { header.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        append("RIFF"); append32(36 + data); append("WAVE")
        append("fmt "); append32(16)
        append16(1) // PCM
        append16(UInt16(format.channels))
        append32(UInt32(format.sampleRate))
        append32(UInt32(format.bytesPerSecond))
        append16(UInt16(format.bytesPerFrame))
        append16(UInt16(AudioFormat.bitsPerSample))
        append("data"); append32(data)
        guard fwrite(header, 1, header.count, file) == header.count else {
            throw UNITIError(L("core.audio.cannotWrite", ["path": path, "reason": String(cString: strerror(errno))]))
        }
    }
}
