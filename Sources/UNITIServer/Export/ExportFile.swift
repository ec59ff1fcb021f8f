import Foundation

/// A file an export writes: under a temporary name beside its destination, through a buffer
/// (few system calls, the memory of one buffer), renamed over the destination when complete, so
/// a failed or interrupted export never leaves half a file where a good one was.
final class ExportFile: @unchecked Sendable {
    // Used by one thread at a time: the export hands rows over one after another.
    let destination: URL
    private let temporary: URL
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private static let chunkSize = 1 << 20

    init(_ destination: URL) throws {
        self.destination = destination
        // Private (0600) from the start: an export holds every participant's answers.
        temporary = URL(fileURLWithPath: PrivateFiles.temporaryPath(beside: destination.path))
        do {
            handle = try PrivateFiles.create(temporary.path)
        } catch {
            throw ExportFailure("\(error)")
        }
        buffer.reserveCapacity(Self.chunkSize)
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunkSize { try flush() }
    }

    func write(_ bytes: Data) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunkSize { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: buffer) } catch {
            throw ExportFailure("Cannot write \(destination.path): \(error.localizedDescription).")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is left and puts the file in place.
    func finish() throws {
        try flush()
        try handle.close()
        do {
            try PrivateFiles.moveIntoPlace(temporary.path, destination.path)
        } catch {
            throw ExportFailure("\(error)")
        }
    }

    /// Removes the temporary file (after a failure); the destination is untouched.
    func abandon() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}

struct ExportFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
