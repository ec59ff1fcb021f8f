import CLibEdit
import Foundation
import UNITICore

/// Line editing on a terminal through libedit: history kept in the data directory (0600) across
/// runs, Tab completion, Ctrl-C abandons the line (or the question being asked) without leaving,
/// Ctrl-D on an empty line ends input.
///
/// libedit calls back through C function pointers, which cannot capture Swift state; the one
/// editor of the process therefore keeps its completion function and prompt in `Self.active`.
public final class LineEditor: LineInput, @unchecked Sendable {
    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let historyPath: String?
    /// Completion candidates for the words before the cursor (the last may be unfinished).
    public var completer: (@Sendable (_ words: [String], _ partial: String) -> [String])?
    /// Called about once a second while the command prompt waits for a key (not while a
    /// question is asked); returns true when it wrote to the terminal, and the prompt and the
    /// line typed so far are then drawn again below what it wrote. This is how a reminder that
    /// falls due while the person sits at the prompt shows at once.
    public var onIdle: (() -> Bool)?
    private var idleAllowed = false
    /// How long the prompt waits for a key before `onIdle` is asked.
    static let idleInterval: Int32 = 1000

    nonisolated(unsafe) static var active: LineEditor?
    nonisolated(unsafe) static var promptBuffer: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var interrupted = false

    public var isInteractive: Bool { true }

    public init(programName: String, historyPath: String?) {
        Self.useUTF8Characters()
        editLine = el_init(programName, fdopen(STDIN_FILENO, "r"), fdopen(STDOUT_FILENO, "w"), fdopen(STDERR_FILENO, "w"))
        history = history_init()
        self.historyPath = historyPath
        uniti_history_set_size(history, 1000)
        uniti_history_set_unique(history, 1)
        if let historyPath {
            uniti_history_load(history, historyPath)
            forgetLinesWithAddresses()
        }

        uniti_el_set_editor(editLine, "emacs")
        uniti_el_set_history(editLine, history)
        uniti_el_set_signal(editLine, 1)
        uniti_el_set_prompt(editLine) { _ in LineEditor.promptBuffer }
        uniti_el_disable_tty_signals(editLine)
        uniti_el_add_function(editLine, "uniti-complete", "Complete the command") { editLine, _ in
            LineEditor.active?.complete(editLine) ?? UInt8(CC_ERROR)
        }
        uniti_el_add_function(editLine, "uniti-abandon", "Abandon the line") { _, _ in
            LineEditor.interrupted = true
            return UInt8(CC_NEWLINE)
        }
        uniti_el_set_getc(editLine) { editLine, character in
            LineEditor.active?.readCharacter(editLine, into: character) ?? -1
        }
        uniti_el_bind(editLine, "^I", "uniti-complete")
        uniti_el_bind(editLine, "^C", "uniti-abandon")
        el_source(editLine, nil)  // the person's own ~/.editrc, if any
        LineEditor.active = self
    }

    deinit {
        saveHistory()
        el_end(editLine)
        history_end(history)
    }

    /// Reads a command line and keeps it in the history, unless it holds an e-mail address
    /// (``HistoryPolicy``).
    public func readCommand(prompt: String) throws -> String? {
        idleAllowed = true
        defer { idleAllowed = false }
        let line = try read(prompt: prompt)
        if let line, !line.trimmingCharacters(in: .whitespaces).isEmpty, HistoryPolicy.keeps(line) {
            uniti_history_enter(history, line)
            saveHistory()
        }
        return line
    }

    /// Reads an answer to a question (not kept in the history).
    public func readLine(prompt: String) throws -> String? {
        try read(prompt: prompt)
    }

    private func read(prompt: String) throws -> String? {
        free(Self.promptBuffer)
        Self.promptBuffer = strdup(prompt)
        Self.interrupted = false
        var count: Int32 = 0
        let raw = el_gets(editLine, &count)
        if Self.interrupted {
            // Show that the line was abandoned and start the next prompt on a fresh line.
            FileHandle.standardOutput.write(Data("^C\n".utf8))
            el_reset(editLine)
            throw PromptCancelled(.interrupted)
        }
        guard let raw else { return nil }
        var line = String(cString: raw)
        while line.hasSuffix("\n") || line.hasSuffix("\r") { line.removeLast() }
        return line
    }

    /// Bytes read from the terminal that do not make a whole character yet.
    private var pendingBytes: [UInt8] = []
    /// U+FFFD, what bytes that are no character stand for.
    private static let replacementCharacter: wchar_t = 0xFFFD

    /// libedit's character reader: one key (a whole UTF-8 character, ``UTF8Input``) from
    /// standard input. While nothing is typed at the command prompt, `onIdle` is asked once per
    /// interval. Returns 1 with a character, 0 at the end of input, -1 on an error.
    fileprivate func readCharacter(_ editLine: OpaquePointer?, into character: UnsafeMutablePointer<wchar_t>?) -> Int32 {
        while true {
            switch UTF8Input.front(of: pendingBytes) {
            case .scalar(let scalar, let length):
                pendingBytes.removeFirst(length)
                character?.pointee = wchar_t(bitPattern: scalar.value)
                return 1
            case .invalid(let length):
                pendingBytes.removeFirst(length)
                character?.pointee = Self.replacementCharacter
                return 1
            case .incomplete:
                break
            }
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let waitsForIdle = idleAllowed && onIdle != nil && pendingBytes.isEmpty
            let ready = poll(&descriptor, 1, waitsForIdle ? Self.idleInterval : -1)
            if ready == 0 {
                if onIdle?() == true { uniti_el_refresh(editLine) }
                continue
            }
            if ready < 0 {
                if errno == EINTR { continue }
                return -1
            }
            var byte: UInt8 = 0
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count == 0 {
                // The input ended inside a character: what was there stands for one U+FFFD.
                guard !pendingBytes.isEmpty else { return 0 }
                pendingBytes.removeAll()
                character?.pointee = Self.replacementCharacter
                return 1
            }
            if count < 0 {
                if errno == EINTR { continue }
                return -1
            }
            pendingBytes.append(byte)
        }
    }

    /// libedit draws, measures and hands over characters through the C library's multibyte
    /// functions, which follow `LC_CTYPE`: under "C" (no `LANG`, or a `LANG` naming a locale the
    /// machine lacks) every letter outside ASCII would be dropped from the line. The terminal is
    /// taken to be UTF-8, as every terminal of today is, so the editor's character type is the
    /// environment's when that is UTF-8 and C.UTF-8 (built into glibc) otherwise.
    static func useUTF8Characters() {
        setlocale(LC_CTYPE, "")
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) == "UTF-8" { return }
        setlocale(LC_CTYPE, "C.UTF-8")
    }

    /// A history written by an earlier version may hold lines with addresses: they are dropped
    /// (and the file rewritten) as it is loaded; a clean history is left as it is.
    private func forgetLinesWithAddresses() {
        var lines: [String] = []  // newest first
        var entry = uniti_history_first(history)
        while let text = entry {
            lines.append(String(cString: text))
            entry = uniti_history_next(history)
        }
        guard lines.contains(where: { !HistoryPolicy.keeps($0) }) else { return }
        uniti_history_clear(history)
        for line in lines.reversed() where HistoryPolicy.keeps(line) { uniti_history_enter(history, line) }
        saveHistory()
    }

    private func saveHistory() {
        guard let historyPath else { return }
        uniti_history_save(history, historyPath)
        chmod(historyPath, 0o600)
    }

    /// Tab: complete the word before the cursor, or list the choices when there are several.
    private func complete(_ editLine: OpaquePointer?) -> UInt8 {
        guard let info = el_line(editLine), let completer else { return UInt8(CC_ERROR) }
        let length = info.pointee.cursor - info.pointee.buffer
        let bytes = UnsafeRawBufferPointer(start: info.pointee.buffer, count: length)
        let text = String(decoding: bytes, as: UTF8.self)
        let (words, endsInWord) = Tokenizer.partial(text)
        let partial = endsInWord ? (words.last ?? "") : ""
        let context = endsInWord ? Array(words.dropLast()) : words
        let candidates = completer(context, partial).filter { $0.hasPrefix(partial) }
        guard !candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        if candidates.count == 1 {
            el_insertstr(editLine, String(candidates[0].dropFirst(partial.count)) + " ")
            return UInt8(CC_REFRESH)
        }
        let common = Self.commonPrefix(candidates)
        if common.count > partial.count {
            el_insertstr(editLine, String(common.dropFirst(partial.count)))
            return UInt8(CC_REFRESH)
        }
        FileHandle.standardOutput.write(Data(("\n" + candidates.joined(separator: "  ") + "\n").utf8))
        return UInt8(CC_REDISPLAY)
    }

    static func commonPrefix(_ words: [String]) -> String {
        guard var prefix = words.first else { return "" }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}

extension LineEditor {
    /// Reads a password with the terminal's echo off; Ctrl-C abandons it.
    public func readSecret(prompt: String) throws -> String? {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            FileHandle.standardOutput.write(Data(prompt.utf8))
            return try readLine(prompt: "")
        }
        // Echo goes off before the prompt shows, and nothing typed is discarded: a password typed
        // or pasted the moment "Password:" appears is neither shown nor lost (TCSAFLUSH here
        // used to echo it, then throw it away and wait).
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ISIG | ICANON)
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        FileHandle.standardOutput.write(Data(prompt.utf8))
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(STDIN_FILENO, &byte, 1) == 1 {
            switch byte {
            case 0x03: throw PromptCancelled(.interrupted)  // Ctrl-C
            case 0x04 where bytes.isEmpty: return nil       // Ctrl-D
            case 0x0A, 0x0D: return String(decoding: bytes, as: UTF8.self)
            case 0x7F, 0x08: bytes = UTF8Input.droppingLastCharacter(bytes)  // "ß" is two bytes
            default: bytes.append(byte)
            }
        }
        return nil
    }
}
