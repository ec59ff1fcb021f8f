/// Characters from the bytes a UTF-8 terminal sends, one scalar at a time, whatever the
/// process's locale says: the line editor's key reader and the questionnaire widgets' key
/// decoder both take keys through this, so "ö", "ß", "ά" and "不" arrive whole in both, and a
/// stray byte costs one replacement character, never the characters around it.
///
/// (The C library's `mbrtowc` would decode by the locale, which is "C" when `LANG` names a
/// locale the machine lacks; and Swift imports its `size_t` results as `Int`, where the
/// "incomplete" answer `(size_t)-2` is `-2`, not `size_t.max - 1`.)
public enum UTF8Input {
    /// What the front of a byte buffer holds.
    public enum Front: Equatable, Sendable {
        /// One whole character of `length` bytes.
        case scalar(Unicode.Scalar, length: Int)
        /// The start of a character whose other bytes have not arrived yet (or no bytes at all).
        case incomplete
        /// `length` bytes that are no UTF-8 character: they stand for one U+FFFD.
        case invalid(length: Int)
    }

    /// Decodes the character at the front of `bytes`.
    public static func front<Bytes: Collection<UInt8>>(of bytes: Bytes) -> Front {
        guard let lead = bytes.first else { return .incomplete }
        let length = sequenceLength(lead: lead)
        guard length > 0 else { return .invalid(length: 1) }
        // Every byte after the lead must be a continuation byte (10xxxxxx); the first one that is
        // not ends the broken sequence and starts the next character.
        var count = 1
        for byte in bytes.dropFirst().prefix(length - 1) {
            guard byte & 0xC0 == 0x80 else { return .invalid(length: count) }
            count += 1
        }
        guard count == length else { return .incomplete }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.prefix(length).makeIterator()
        guard case .valid(let encoded) = parser.parseScalar(from: &iterator) else {
            return .invalid(length: length)  // overlong, a surrogate, beyond U+10FFFF
        }
        return .scalar(Unicode.UTF8.decode(encoded), length: length)
    }

    /// How many bytes a character starting with `lead` takes; 0 for a byte no character starts with.
    public static func sequenceLength(lead: UInt8) -> Int {
        switch lead {
        case 0x00..<0x80: return 1
        case 0xC2..<0xE0: return 2
        case 0xE0..<0xF0: return 3
        case 0xF0..<0xF5: return 4
        default: return 0  // a continuation byte, or C0, C1, F5…FF, which UTF-8 never uses
        }
    }

    /// The bytes of `text` without its last character (a key's Backspace on bytes typed so far):
    /// "Straß" loses the two bytes of "ß", not one.
    public static func droppingLastCharacter(_ bytes: [UInt8]) -> [UInt8] {
        var text = String(decoding: bytes, as: UTF8.self)
        guard !text.isEmpty else { return [] }
        text.removeLast()
        return Array(text.utf8)
    }
}
