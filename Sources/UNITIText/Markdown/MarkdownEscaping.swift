import UNITIProtocol

/// Escaping for HTML and the character references (`&amp;`, `&#228;`) that Markdown text may hold.
enum MarkdownEscaping {
    /// Text as HTML text (``MarkupText/escape(_:)``: `"` and `'` too, so the same text is safe
    /// in an attribute).
    static func text(_ text: String) -> String { MarkupText.escape(text) }

    /// A value for an attribute in double quotes.
    static func attribute(_ value: String) -> String { text(value) }

    /// The text with each character reference it holds replaced by its character; a reference
    /// that names nothing known stays as written.
    static func decodingEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            rest = rest[ampersand...]
            if let (character, length) = reference(at: rest) {
                result.append(character)
                rest = rest.dropFirst(length)
            } else {
                result.append("&")
                rest = rest.dropFirst()
            }
        }
        return result + rest
    }

    /// The character of the reference `text` begins with (`&name;`, `&#decimal;`, `&#xhex;`) and
    /// the reference's length in characters; nil when it is none. A number that names no
    /// character a text may hold (0, a surrogate, beyond Unicode, a control) reads as U+FFFD.
    static func reference(at text: Substring) -> (Character, Int)? {
        guard text.first == "&", let semicolon = text.prefix(34).firstIndex(of: ";") else { return nil }
        let body = text[text.index(after: text.startIndex)..<semicolon]
        let length = body.count + 2
        if body.first == "#" {
            let digits = body.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" {
                let hex = digits.dropFirst()
                value = !hex.isEmpty && hex.count <= 6 && hex.allSatisfy(\.isHexDigit) ? UInt32(hex, radix: 16) : nil
            } else {
                value = !digits.isEmpty && digits.count <= 7 && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) ? UInt32(digits) : nil
            }
            guard let value else { return nil }
            guard let scalar = Unicode.Scalar(value), !MarkdownEscaping.isControl(scalar) else { return ("\u{FFFD}", length) }
            return (Character(scalar), length)
        }
        guard let character = named[String(body)] else { return nil }
        return (character, length)
    }

    /// A control character (C0 but tab and line feed, DEL, C1): a terminal would obey it, so it
    /// is never passed on.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        default: return false
        }
    }

    /// The named references a consent text is likely to hold; others stay as written.
    static let named: [String: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "auml": "ä", "ouml": "ö", "uuml": "ü", "Auml": "Ä", "Ouml": "Ö", "Uuml": "Ü", "szlig": "ß",
        "eacute": "é", "egrave": "è", "agrave": "à", "ccedil": "ç",
        "ndash": "–", "mdash": "—", "hellip": "…", "bull": "•", "middot": "·",
        "laquo": "«", "raquo": "»", "bdquo": "„", "ldquo": "“", "rdquo": "”", "lsquo": "‘", "rsquo": "’", "sbquo": "‚",
        "copy": "©", "reg": "®", "trade": "™", "euro": "€", "deg": "°", "sect": "§", "para": "¶", "times": "×",
    ]
}
