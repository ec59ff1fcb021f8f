/// How many terminal columns text takes.
///
/// `padding(toLength:)` counts UTF-16 units and `count` counts characters; both are right for
/// "Grün", "–" and "≈", but a decomposed "ü" is two UTF-16 units, and CJK characters and most
/// emoji take two columns. Tables (``TextTable``) and cut titles (the charts) measure with this,
/// so columns stay aligned whatever the language.
extension String {
    /// The columns this text takes in a terminal (wide characters count two, zero-width ones none).
    public var displayWidth: Int {
        // Printable ASCII, most of what the program prints, takes one column a byte; the Unicode
        // properties below are looked up (and their tables loaded) only for other text.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return utf8.count }
        return reduce(0) { $0 + $1.displayWidth }
    }

    /// The text cut to at most `width` columns, ending in "…" when something was cut.
    public func truncated(toDisplayWidth width: Int) -> String {
        guard displayWidth > width else { return self }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in self {
            let next = character.displayWidth
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }
}

extension Character {
    /// Two columns for East Asian wide and full-width characters and for emoji shown as
    /// pictures, none for marks and invisible format characters, one for everything else.
    var displayWidth: Int {
        if let ascii = asciiValue, ascii >= 0x20, ascii < 0x7F { return 1 }
        guard let first = unicodeScalars.first else { return 0 }
        let properties = first.properties
        switch properties.generalCategory {
        case .control, .format, .nonspacingMark, .enclosingMark: return 0
        default: break
        }
        if properties.isEmojiPresentation || unicodeScalars.contains("\u{FE0F}") { return 2 }
        return Self.wideRanges.contains { $0.contains(first.value) } ? 2 : 1
    }

    /// East Asian Wide and Fullwidth blocks (Unicode Standard Annex #11), coarsely.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
        0xFFE0...0xFFE6, 0x20000...0x3FFFD,
    ]
}
