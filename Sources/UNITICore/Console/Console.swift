import Foundation

/// Where commands write. Standard output carries results (and `--json`); standard error carries
/// errors and notices, so that piping results stays clean. Injected so tests can capture both.
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private let writeOut: @Sendable (String) -> Void
    private let writeErr: @Sendable (String) -> Void
    /// Whether standard output is a terminal (colors, widgets, widths).
    public let isTerminal: Bool
    /// A width decided by the caller (tests), instead of the terminal's.
    private let fixedWidth: Int?

    public init(isTerminal: Bool, width: Int? = nil,
                out: @escaping @Sendable (String) -> Void,
                err: @escaping @Sendable (String) -> Void) {
        self.isTerminal = isTerminal
        self.fixedWidth = width
        self.writeOut = out
        self.writeErr = err
    }

    /// The process's real standard output and error.
    public static func standard() -> Console {
        Console(
            isTerminal: isatty(STDOUT_FILENO) == 1,
            out: { FileHandle.standardOutput.write(Data($0.utf8)) },
            err: { FileHandle.standardError.write(Data($0.utf8)) }
        )
    }

    /// A console that collects everything written, for tests (which may pretend it is a
    /// terminal of a given width).
    public static func capturing(isTerminal: Bool = false, width: Int? = nil) -> (Console, CapturedOutput) {
        let captured = CapturedOutput()
        let console = Console(isTerminal: isTerminal, width: width,
                              out: { captured.append(out: $0) },
                              err: { captured.append(err: $0) })
        return (console, captured)
    }

    /// Writes one line (a newline is added) to standard output.
    public func line(_ text: String = "") {
        write(text + "\n")
    }

    /// Writes text as it is to standard output.
    public func write(_ text: String) {
        lock.withLock { writeOut(text) }
    }

    /// Writes one line to standard error.
    public func error(_ text: String) {
        lock.withLock { writeErr(text + "\n") }
    }

    /// Writes a value as pretty, key-sorted JSON on standard output.
    public func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        line(String(decoding: data, as: UTF8.self))
    }

    /// The terminal width in columns (the width given at creation, else `COLUMNS`, else the
    /// terminal's; 80 when unknown or not a terminal).
    public var width: Int {
        if let fixedWidth { return fixedWidth }
        if let columns = ProgramEnvironment.value("COLUMNS"), let value = Int(columns), value > 20 {
            return value
        }
        var size = winsize()
        if isTerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return Int(size.ws_col)
        }
        return 80
    }
}

/// Output collected by `Console.capturing()`.
public final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""

    func append(out text: String) { lock.withLock { outText += text } }
    func append(err text: String) { lock.withLock { errText += text } }

    public var out: String { lock.withLock { outText } }
    public var err: String { lock.withLock { errText } }
}
