import Foundation

/// Where the shell and its commands read lines from: the line editor on a terminal, or plain
/// lines when standard input is a pipe or a script. A command that asks a question reads its
/// answer through the same input, so in a script the answers simply follow the command.
public protocol LineInput: AnyObject, Sendable {
    /// Shows `prompt` (on a terminal) and reads one line without its newline.
    /// Returns nil at the end of input; throws `PromptCancelled` when the person presses Ctrl-C.
    func readLine(prompt: String) throws -> String?

    /// Whether a person is typing at a terminal (line editing, widgets, countdowns).
    var isInteractive: Bool { get }

    /// Reads a secret (a password) without showing it on a terminal.
    func readSecret(prompt: String) throws -> String?
}

extension LineInput {
    /// Plain input has nothing to hide from: a secret is read like any line.
    public func readSecret(prompt: String) throws -> String? {
        try readLine(prompt: prompt)
    }

    /// Reads a line, turning end of input into `PromptCancelled(.endOfInput)`: for questions a
    /// command cannot go on without.
    public func requireLine(prompt: String) throws -> String {
        guard let line = try readLine(prompt: prompt) else { throw PromptCancelled(.endOfInput) }
        return line
    }
}

/// Lines given up front: for `-c` commands without standard input, and for tests.
public final class ScriptedInput: LineInput, @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: [String]
    /// Every prompt shown, in order (tests check what was asked).
    public private(set) var prompts: [String] = []

    public init(_ lines: [String]) {
        self.remaining = lines
    }

    public var isInteractive: Bool { false }

    /// More lines after those given (a test that types again after the input ran out).
    public func append(_ lines: [String]) {
        lock.withLock { remaining += lines }
    }

    public func readLine(prompt: String) throws -> String? {
        lock.withLock {
            prompts.append(prompt)
            return remaining.isEmpty ? nil : remaining.removeFirst()
        }
    }
}

/// Plain lines from a file handle (standard input when it is not a terminal, or a script file).
/// Prompts are written to standard output once, so a transcript of a piped session reads well.
public final class StreamInput: LineInput, @unchecked Sendable {
    private let file: UnsafeMutablePointer<FILE>
    private let echoPrompts: Bool
    private let lock = NSLock()

    /// - Parameter echoPrompts: print each prompt before reading (true for piped stdin).
    public init(file: UnsafeMutablePointer<FILE>, echoPrompts: Bool) {
        self.file = file
        self.echoPrompts = echoPrompts
    }

    public var isInteractive: Bool { false }

    public func readLine(prompt: String) throws -> String? {
        lock.withLock {
            if echoPrompts, !prompt.isEmpty {
                FileHandle.standardOutput.write(Data(prompt.utf8))
            }
            var buffer: UnsafeMutablePointer<CChar>? = nil
            var capacity = 0
            defer { free(buffer) }
            let count = getline(&buffer, &capacity, file)
            guard count >= 0, let buffer else {
                if echoPrompts, !prompt.isEmpty { FileHandle.standardOutput.write(Data("\n".utf8)) }
                return nil
            }
            var line = String(cString: buffer)
            while line.hasSuffix("\n") || line.hasSuffix("\r") { line.removeLast() }
            if echoPrompts, !prompt.isEmpty { FileHandle.standardOutput.write(Data("\n".utf8)) }
            return line
        }
    }
}
