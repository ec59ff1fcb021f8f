import Foundation
import Ink

/// Markdown written by a study team (a study's consent) in the two forms people read it: HTML for
/// the portal and the staff console, plain text for the shell.
///
/// Ink turns the Markdown into HTML, but passes raw HTML in the source through and writes link
/// addresses unescaped, so its output is never shown as it is. It is read back by
/// ``MarkdownNodes``, which keeps only the tags Markdown itself makes (headings, paragraphs,
/// lists, emphasis, code, quotes, tables, rules and links to `http`, `https` and `mailto`
/// addresses) as well-formed, attribute-free elements, and decodes everything else into text.
/// Raw HTML in the source is shown as the text it is; nothing a study team types can run script
/// in a participant's browser. Both forms come from the same nodes, so the shell reads what the
/// portal shows.
public enum MarkdownText {
    /// Safe HTML for a page. `topHeadingLevel` is the level a `#` heading takes, so the text's
    /// headings nest under the page's own (a consent under a study's `<h2>` starts at 3).
    public static func html(_ markdown: String, topHeadingLevel: Int = 1) -> String {
        MarkdownNodes(inkHTML: inkHTML(markdown), topHeadingLevel: topHeadingLevel).html
    }

    /// The text as a terminal shows it: headings as lines of their own, list items with a bullet
    /// (or their number), emphasis without its markers, links as `text (address)`, paragraphs
    /// apart by an empty line; no control characters (a terminal would obey them).
    public static func plainText(_ markdown: String) -> String {
        MarkdownPlainText(nodes: MarkdownNodes(inkHTML: inkHTML(markdown), topHeadingLevel: 1).nodes).text
    }

    /// Ink's HTML with raw HTML turned into text and links and images rewritten with addresses
    /// that are checked and escaped (``MarkdownLink``).
    static func inkHTML(_ markdown: String) -> String {
        // Ink reads `\r\n` as one character that is not a line break; a text from a browser's
        // textarea has those.
        let markdown = markdown.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let parser = MarkdownParser(modifiers: [
            // After ``escapingHTML(_:)`` Ink finds no raw HTML; should it ever, it is text.
            Modifier(target: .html) { input in MarkdownEscaping.text(String(input.markdown)) },
            Modifier(target: .links) { input in MarkdownLink(ink: input)?.html ?? MarkdownEscaping.text(String(input.markdown)) },
            Modifier(target: .images) { input in MarkdownLink(image: input)?.html ?? MarkdownEscaping.text(String(input.markdown)) },
        ])
        return parser.html(from: escapingHTML(markdown))
    }

    /// The source with every `<` outside code written as `&lt;`, so Ink never reads raw HTML:
    /// it would take an element without its closing tag (`<br>`, `<img …>`) as running to the end
    /// of the text, and the rest of the consent would show as raw Markdown. Inside code (a block
    /// fenced by backticks, a span between two on one line) Ink escapes `<` itself.
    static func escapingHTML(_ markdown: String) -> String {
        guard markdown.contains("<") else { return markdown }
        var result = "", fence: Int?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { result += "\n" }
            let backticks = line.drop { $0 == " " }.prefix { $0 == "`" }.count
            if let open = fence {
                if backticks == open { fence = nil }
                result += line
                continue
            }
            if backticks >= 3 {
                fence = backticks
                result += line
                continue
            }
            var rest = line[...]
            while let character = rest.first {
                if character == "`", let close = rest.dropFirst().firstIndex(of: "`") {
                    result += rest[...close]
                    rest = rest[rest.index(after: close)...]
                    continue
                }
                result += character == "<" ? "&lt;" : String(character)
                rest = rest.dropFirst()
            }
        }
        return result
    }
}

/// A link Ink found, with its address taken from the Markdown source (Ink writes it into `href`
/// unescaped) and kept only when it is `http`, `https` or `mailto`; otherwise only its text.
struct MarkdownLink {
    /// The link's content, as HTML Ink wrote for it (already through the other modifiers).
    var contentHTML: String
    var address: String?

    /// `[text](address)` or `[text][reference]`.
    init?(ink input: Modifier.Input) {
        let markdown = String(input.markdown), html = input.html
        if let address = Self.inlineAddress(markdown) {
            let prefix = "<a href=\"\(address)\">"
            guard html.hasPrefix(prefix), html.hasSuffix("</a>") else { return nil }
            contentHTML = String(html.dropFirst(prefix.count).dropLast(4))
            self.address = Self.safeAddress(address)
        } else {
            // A reference link: its address came from a `[reference]: address` line. The first
            // `">` ends it, unless the address holds one itself; then part of it shows as text,
            // which is ugly but, like all text, escaped.
            guard html.hasPrefix("<a href=\""), html.hasSuffix("</a>"),
                  let end = html.range(of: "\">") else { return nil }
            let address = String(html[html.index(html.startIndex, offsetBy: 9)..<end.lowerBound])
            contentHTML = String(html[end.upperBound...].dropLast(4))
            self.address = Self.safeAddress(address)
        }
    }

    /// `![text](address)`: shown as a link to the picture, never loaded into the page.
    init?(image input: Modifier.Input) {
        let markdown = String(input.markdown.dropFirst())
        guard markdown.hasPrefix("["), let address = Self.inlineAddress(markdown),
              let close = markdown.range(of: "](", options: .backwards) else { return nil }
        let text = String(markdown[markdown.index(after: markdown.startIndex)..<close.lowerBound])
        contentHTML = MarkdownEscaping.text(text.isEmpty ? address : text)
        self.address = Self.safeAddress(address)
    }

    var html: String {
        guard let address else { return contentHTML }
        return "<a href=\"\(MarkdownEscaping.attribute(address))\">\(contentHTML)</a>"
    }

    /// The address of `[text](address)` as Ink read it: up to the `)` that balances the `(`.
    static func inlineAddress(_ markdown: String) -> String? {
        guard markdown.hasPrefix("["), markdown.hasSuffix(")") else { return nil }
        var depth = 0
        var index = markdown.index(before: markdown.endIndex)
        while index > markdown.startIndex {
            index = markdown.index(before: index)
            switch markdown[index] {
            case ")": depth += 1
            case "(" where depth == 0:
                guard index > markdown.startIndex, markdown[markdown.index(before: index)] == "]" else { return nil }
                return String(markdown[markdown.index(after: index)..<markdown.index(before: markdown.endIndex)])
            case "(": depth -= 1
            default: break
            }
        }
        return nil
    }

    /// The address when it is an absolute `http`, `https` or `mailto` address; nil for any other
    /// (`javascript:`, `data:`, a relative path, an address that hides its scheme behind
    /// entities or control characters). A title after the address (`"…"`) is left out.
    static func safeAddress(_ written: String) -> String? {
        let decoded = MarkdownEscaping.decodingEntities(written).trimmingCharacters(in: .whitespacesAndNewlines)
        let address = String(decoded.prefix { !$0.isWhitespace })
        guard !address.isEmpty, address.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }) else {
            return nil
        }
        let lowered = address.lowercased()
        for scheme in ["http://", "https://"] where lowered.hasPrefix(scheme) && lowered.count > scheme.count {
            return address
        }
        if lowered.hasPrefix("mailto:"), lowered.count > 7 { return address }
        return nil
    }
}
