import Foundation

/// One key press as the terminal widgets understand it.
public enum Key: Equatable, Sendable {
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, space, backspace, escape, tab
    /// Ctrl-C: abandon the questionnaire (the draft is kept).
    case interrupt
    /// Input closed (Ctrl-D on an empty line, or the end of a test's keys).
    case endOfInput
    case character(Character)
}

/// Where the widgets read keys from: the real terminal in raw mode, or keys given up front in
/// tests. Kept small so a test can drive a slider with a list of keys.
public protocol KeyInput: AnyObject {
    /// Runs `body` with keys delivered one by one and not echoed; restores the terminal after.
    func withRawMode<T>(_ body: () throws -> T) throws -> T
    /// The next key (blocking).
    func readKey() throws -> Key
}

/// Keys given up front, for tests. After the last key every read is `.endOfInput`.
public final class ScriptedKeys: KeyInput {
    private var remaining: [Key]

    public init(_ keys: [Key]) {
        self.remaining = keys
    }

    public func withRawMode<T>(_ body: () throws -> T) throws -> T { try body() }

    public func readKey() throws -> Key {
        remaining.isEmpty ? .endOfInput : remaining.removeFirst()
    }

    /// Keys not read yet.
    public var unread: [Key] { remaining }
}

/// Turns the bytes a terminal sends into keys (arrow keys arrive as `ESC [ A` and friends).
public struct KeyDecoder {
    public init() {}

    /// Decodes one key from the front of `bytes`, returning it and how many bytes it used;
    /// nil when more bytes are needed.
    public func decode(_ bytes: [UInt8]) -> (key: Key, length: Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 3: return (.interrupt, 1)
        case 4: return (.endOfInput, 1)
        case 9: return (.tab, 1)
        case 10, 13: return (.enter, 1)
        case 32: return (.space, 1)
        case 8, 127: return (.backspace, 1)
        case 27:
            guard bytes.count >= 2 else { return (.escape, 1) }
            guard bytes[1] == 91 || bytes[1] == 79 else { return (.escape, 1) }  // "[" or "O"
            guard bytes.count >= 3 else { return nil }
            switch bytes[2] {
            case 65: return (.up, 3)
            case 66: return (.down, 3)
            case 67: return (.right, 3)
            case 68: return (.left, 3)
            case 72: return (.home, 3)
            case 70: return (.end, 3)
            case 49...54:  // ESC [ 1 ~, ESC [ 5 ~ ...
                guard bytes.count >= 4 else { return nil }
                guard bytes[3] == 126 else { return (.escape, 3) }
                switch bytes[2] {
                case 49: return (.home, 4)
                case 52: return (.end, 4)
                case 53: return (.pageUp, 4)
                case 54: return (.pageDown, 4)
                default: return (.escape, 4)
                }
            default: return (.escape, 3)
            }
        default:
            // One UTF-8 character, whole; bytes that are none stand for one U+FFFD.
            switch UTF8Input.front(of: bytes) {
            case .scalar(let scalar, let length): return (.character(Character(scalar)), length)
            case .invalid(let length): return (.character("\u{FFFD}"), length)
            case .incomplete: return nil
            }
        }
    }
}
