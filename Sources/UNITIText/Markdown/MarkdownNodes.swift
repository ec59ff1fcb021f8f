/// Ink's HTML read back into the few elements Markdown makes, and nothing else.
///
/// An element is kept only when its tag is one Markdown produces (``allowed``) and only with the
/// attributes Markdown gives it (a list's `start`, a table cell's `align`, a link's checked
/// `href`); any other `<…>` is text. Elements are kept well-formed: a closing tag without its
/// opening one is dropped, and whatever is open at the end is closed, so a text can never close
/// an element of the page around it. Text is held decoded and escaped again when written.
struct MarkdownNodes {
    enum Node: Equatable {
        case open(String, attributes: [(name: String, value: String)])
        case close(String)
        /// An element without content: `br`, `hr`.
        case empty(String)
        case text(String)

        static func == (left: Node, right: Node) -> Bool {
            switch (left, right) {
            case let (.open(a, x), .open(b, y)): a == b && x.map(\.name) == y.map(\.name) && x.map(\.value) == y.map(\.value)
            case let (.close(a), .close(b)), let (.empty(a), .empty(b)), let (.text(a), .text(b)): a == b
            default: false
            }
        }
    }

    /// The tags Markdown makes, with content.
    static let allowed: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "s", "del", "code", "pre", "blockquote",
        "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
    ]
    /// The tags Markdown makes without content.
    static let empty: Set<String> = ["br", "hr"]

    private(set) var nodes: [Node] = []

    init(inkHTML: String, topHeadingLevel: Int) {
        let shift = max(1, min(6, topHeadingLevel)) - 1
        var open: [String] = []
        var text = ""
        var rest = Substring(inkHTML)

        func flushText() {
            if !text.isEmpty { nodes.append(.text(text)) }
            text = ""
        }

        while let character = rest.first {
            // A tag Markdown does not make is text, shown as written.
            if character == "<", let (tag, length) = Self.tag(at: rest), Self.allowed.contains(tag.name) || Self.empty.contains(tag.name) {
                rest = rest.dropFirst(length)
                var name = tag.name
                if name.count == 2, name.first == "h", let level = name.last?.wholeNumberValue {
                    name = "h\(min(6, level + shift))"
                }
                if Self.empty.contains(name) {
                    flushText()
                    nodes.append(.empty(name))
                } else if tag.closing {
                    // Closes what is open down to its opening tag; nothing when it is not open.
                    guard let index = open.lastIndex(of: name) else { continue }
                    flushText()
                    for inner in open[index...].reversed() { nodes.append(.close(inner)) }
                    open.removeSubrange(index...)
                } else {
                    guard let attributes = Self.attributes(of: name, tag.attributes) else { continue }
                    flushText()
                    nodes.append(.open(name, attributes: attributes))
                    open.append(name)
                }
            } else if character == "&", let (decoded, length) = MarkdownEscaping.reference(at: rest) {
                text.append(decoded)
                rest = rest.dropFirst(length)
            } else {
                if !character.unicodeScalars.contains(where: MarkdownEscaping.isControl) { text.append(character) }
                rest = rest.dropFirst()
            }
        }
        flushText()
        for name in open.reversed() { nodes.append(.close(name)) }
    }

    /// The nodes as HTML: only these elements, text escaped.
    var html: String {
        var html = ""
        for node in nodes {
            switch node {
            case let .open(name, attributes):
                html += "<" + name
                for attribute in attributes { html += " \(attribute.name)=\"\(MarkdownEscaping.attribute(attribute.value))\"" }
                html += ">"
            case let .close(name): html += "</\(name)>"
            case let .empty(name): html += "<\(name)>"
            case let .text(text): html += MarkdownEscaping.text(text)
            }
        }
        return html
    }

    /// The attributes an allowed element keeps; nil when the tag is not one Markdown makes (or a
    /// link whose address is not a safe one: Ink's own links went through ``MarkdownLink``, so a
    /// link here without a safe address was not written by it).
    static func attributes(of name: String, _ written: [(name: String, value: String)]) -> [(name: String, value: String)]? {
        guard allowed.contains(name) else { return nil }
        switch name {
        case "a":
            guard let href = written.first(where: { $0.name == "href" }),
                  let address = MarkdownLink.safeAddress(href.value) else { return nil }
            return [("href", address)]
        case "ol":
            return written.filter { $0.name == "start" && !$0.value.isEmpty && $0.value.count <= 9 && $0.value.allSatisfy { $0.isASCII && $0.isNumber } }
        case "th", "td":
            return written.filter { $0.name == "align" && ["left", "center", "right"].contains($0.value) }
        default:
            return []
        }
    }

    /// A tag as Ink writes one: `<name>`, `</name>`, `<name attr="value" …>` (`/>` allowed), with
    /// the tag's length in characters; nil for anything else, which is then text.
    static func tag(at text: Substring) -> (tag: (name: String, closing: Bool, attributes: [(name: String, value: String)]), length: Int)? {
        var index = text.index(after: text.startIndex)
        func peek() -> Character? { index < text.endIndex ? text[index] : nil }
        func advance() { index = text.index(after: index) }
        let closing = peek() == "/"
        if closing { advance() }
        var name = ""
        while let character = peek(), character.isASCII, character.isLetter || (character.isNumber && !name.isEmpty) {
            name.append(Character(character.lowercased()))
            advance()
        }
        guard !name.isEmpty, name.count <= 10 else { return nil }
        var attributes: [(name: String, value: String)] = []
        while true {
            var spaced = false
            while peek() == " " { advance(); spaced = true }
            guard let character = peek() else { return nil }
            if character == ">" { advance(); break }
            if character == "/", !closing {
                advance()
                guard peek() == ">" else { return nil }
                advance()
                break
            }
            guard spaced, !closing else { return nil }
            var attribute = ""
            while let letter = peek(), letter.isASCII, letter.isLetter || letter == "-" {
                attribute.append(letter)
                advance()
            }
            guard !attribute.isEmpty, peek() == "=" else { return nil }
            advance()
            guard peek() == "\"" else { return nil }
            advance()
            var value = ""
            while let letter = peek(), letter != "\"" {
                guard letter != "<", letter != ">" else { return nil }
                value.append(letter)
                advance()
            }
            guard peek() == "\"" else { return nil }
            advance()
            attributes.append((attribute.lowercased(), MarkdownEscaping.decodingEntities(value)))
        }
        return ((name, closing, attributes), text.distance(from: text.startIndex, to: index))
    }
}
