import Foundation

/// Keys from a real terminal: raw mode through termios (no line buffering, no echo, Ctrl-C as
/// a key rather than a signal) while a widget runs, restored afterwards even when the widget
/// throws. Single-threaded by use: only the running command reads keys.
public final class TerminalKeyInput: KeyInput {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private let decoder = KeyDecoder()

    public init(descriptor: Int32 = STDIN_FILENO) {
        self.descriptor = descriptor
    }

    /// Keys from standard input when it is a terminal; nil otherwise.
    public static func standardInput() -> TerminalKeyInput? {
        isatty(STDIN_FILENO) == 1 ? TerminalKeyInput() : nil
    }

    public func withRawMode<T>(_ body: () throws -> T) throws -> T {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else { return try body() }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(descriptor, TCSAFLUSH, &raw)
        defer {
            tcsetattr(descriptor, TCSAFLUSH, &original)
            pending.removeAll()
        }
        return try body()
    }

    public func readKey() throws -> Key {
        while true {
            if let (key, length) = decoder.decode(pending) {
                // A lone ESC is only a key if nothing follows at once.
                if key == .escape, length == 1, pending.count == 1, waitForMore() { continue }
                pending.removeFirst(length)
                return key
            }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count <= 0 {
                if count < 0, errno == EINTR { continue }
                return .endOfInput
            }
            pending.append(byte)
        }
    }

    /// Reads one more byte if it arrives within 50 ms (to tell ESC from an escape sequence).
    private func waitForMore() -> Bool {
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptorSet, 1, 50) > 0 else { return false }
        var byte: UInt8 = 0
        guard read(descriptor, &byte, 1) == 1 else { return false }
        pending.append(byte)
        return true
    }
}
