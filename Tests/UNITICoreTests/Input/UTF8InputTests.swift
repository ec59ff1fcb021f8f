import Testing
@testable import UNITICore
import UNITIText

/// The bytes a UTF-8 terminal sends become whole characters, in the line editor's key reader
/// and the questionnaire widgets' key decoder alike.
@Suite("UTF-8 keys from a terminal", .timeLimit(.minutes(10)))
struct UTF8InputTests {
    @Test("a character of one to four bytes is one key; its bytes may arrive one at a time")
    func wholeCharacters() {
        for text in ["a", "ä", "ß", "ά", "不", "🦻"] {
            let bytes = Array(text.utf8)
            for count in 1..<bytes.count {
                #expect(UTF8Input.front(of: bytes.prefix(count)) == .incomplete, "\(text) after \(count) bytes")
                #expect(KeyDecoder().decode(Array(bytes.prefix(count))) == nil)
            }
            #expect(UTF8Input.front(of: bytes) == .scalar(text.unicodeScalars.first!, length: bytes.count))
            let decoded = KeyDecoder().decode(bytes + Array("x".utf8))
            #expect(decoded?.key == .character(Character(text)) && decoded?.length == bytes.count, "\(text)")
        }
    }

    @Test("bytes that are no character stand for one U+FFFD and never swallow the next character")
    func brokenBytes() {
        // A lead byte followed by an ASCII letter: the letter stays a key of its own.
        #expect(UTF8Input.front(of: [0xC3, 0x61]) == .invalid(length: 1))
        #expect(KeyDecoder().decode([0xC3, 0x61])! == (Key.character("\u{FFFD}"), 1))
        #expect(KeyDecoder().decode([0x61])! == (Key.character("a"), 1))
        // A stray continuation byte, bytes UTF-8 never uses, an overlong "/", a surrogate.
        #expect(UTF8Input.front(of: [0xB6]) == .invalid(length: 1))
        #expect(UTF8Input.front(of: [0xFF]) == .invalid(length: 1))
        #expect(UTF8Input.front(of: [0xC0, 0xAF]) == .invalid(length: 1))
        #expect(UTF8Input.front(of: [0xED, 0xA0, 0x80]) == .invalid(length: 3))
        // A three-byte character cut short by the next one's lead byte.
        #expect(UTF8Input.front(of: [0xE4, 0xB8, 0xC3, 0xA4]) == .invalid(length: 2))
    }

    @Test("Backspace over typed bytes removes one character: ß is two bytes, 不 three, é with its accent")
    func backspace() {
        #expect(UTF8Input.droppingLastCharacter(Array("Straß".utf8)) == Array("Stra".utf8))
        #expect(UTF8Input.droppingLastCharacter(Array("a不".utf8)) == Array("a".utf8))
        #expect(UTF8Input.droppingLastCharacter(Array("cafe\u{301}".utf8)) == Array("caf".utf8))
        #expect(UTF8Input.droppingLastCharacter([]) == [])
    }

    @Test("what was typed takes the columns a terminal gives it")
    func typedWidths() {
        #expect("Hörgeräte".displayWidth == 9)
        #expect("groß".displayWidth == 4)
        #expect("cafe\u{301}".displayWidth == 4)  // e and a combining accent: one column
        #expect("ελληνικά".displayWidth == 8)
        #expect("不安".displayWidth == 4)
    }
}
