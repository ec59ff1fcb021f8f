import Foundation

/// Text made safe for XML and HTML, in content and in quoted attributes: the audiogram picture
/// and the doctor's report put people's own words (notes, titles) into markup, and a `<script>`
/// typed into an event title must arrive as text. One copy for the core's SVG charts, the
/// audiogram picture (TinnitusNavigatorShared) and the server.
public enum MarkupText {
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default:
                // Control characters other than tab, newline and return are not allowed in XML 1.0.
                if let ascii = character.asciiValue, ascii < 0x20, ascii != 0x09, ascii != 0x0A, ascii != 0x0D { continue }
                result.append(character)
            }
        }
        return result
    }

    /// A number for a coordinate, with at most two decimals.
    public static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(rounded)
    }
}
