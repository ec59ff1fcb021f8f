import Foundation
import UNITITesting

/// Drives a program through a pseudo-terminal, as a person at a keyboard would: the program
/// sees a TTY (line editing, Tab, Ctrl-C as a key), the test types and reads the screen.
final class Terminal {
    let process = Process()
    private let master: Int32
    private var screen = Data()
    private let lock = NSLock()
    private let reader: Thread

    init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        // Linux pseudo-terminal pair through /dev/ptmx (posix_openpt is hidden by Glibc's
        // module map): unlock the slave (TIOCSPTLCK) and ask its number (TIOCGPTN).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw CocoaError(.fileNoSuchFile)
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: Program.path(name))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        env["LANG"] = "C.UTF-8"
        env["HOME"] = NSTemporaryDirectory()  // no personal ~/.editrc
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        let masterFD = master
        let box = Reader()
        reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(masterFD, &buffer, buffer.count)
                if count <= 0 { break }
                box.append(Data(buffer[0..<count]))
            }
        }
        self.readerBox = box
        try process.run()
        try handle.close()
        reader.start()
    }

    private let readerBox: Reader

    final class Reader: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    /// Everything the program has written so far.
    var output: String { readerBox.text }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits until the output contains `text` (at most `timeout` seconds); true if it did.
    @discardableResult
    func waitFor(_ text: String, after start: String.Index? = nil, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = output
            let searchStart = start.map { min($0, current.endIndex) } ?? current.startIndex
            if current[searchStart...].contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Waits for a prompt printed after `marker`, then a moment more: keys typed before the line
    /// editor has switched the terminal to raw mode may be flushed by it.
    @discardableResult
    func waitForPrompt(_ prompt: String, after marker: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = output
            if let range = current.range(of: marker, options: .backwards), current[range.upperBound...].contains(prompt) {
                usleep(100_000)
                return true
            }
            usleep(20_000)
        }
        return false
    }

    /// Counts how often `text` appears in the output.
    func occurrences(of text: String) -> Int {
        output.components(separatedBy: text).count - 1
    }

    /// Waits for the program to end; returns its status, or nil if it is still running.
    func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }
}
