import Foundation

/// Markdown's elements (``MarkdownNodes``) as lines for a terminal: a heading is a line of its
/// own, a list item starts with `•` (or its number) and is indented by its depth, a quote with
/// `> `, code keeps its lines, a link reads `text (address)`; blocks are apart by one empty line.
struct MarkdownPlainText {
    private var lines: [String] = []
    private var line = ""
    /// Each open list: whether it is numbered, and the next number.
    private var lists: [(numbered: Bool, next: Int)] = []
    private var quoteDepth = 0
    private var inCode = false
    /// Open links: the address, and where the link's text began in `line`.
    private var links: [(address: String, start: Int)] = []
    /// Cells written so far in the current table row.
    private var cells = 0

    init(nodes: [MarkdownNodes.Node]) {
        for node in nodes {
            switch node {
            case let .open(name, attributes): open(name, attributes)
            case let .close(name): close(name)
            case .empty("br"): endLine()
            case .empty: endBlock(); lines.append("———"); endBlock()
            case let .text(text): write(text)
            }
        }
        endLine()
    }

    /// The lines, without empty lines at either end or two in a row, nor spaces at line ends.
    var text: String {
        var result: [String] = []
        for line in lines.map(Self.trimmingTrailingSpaces) {
            if line.isEmpty, result.last?.isEmpty ?? true { continue }
            result.append(line)
        }
        while result.last?.isEmpty == true { result.removeLast() }
        return result.joined(separator: "\n")
    }

    private mutating func open(_ name: String, _ attributes: [(name: String, value: String)]) {
        switch name {
        case "p", "h1", "h2", "h3", "h4", "h5", "h6", "table":
            endBlock()
        case "pre":
            endBlock()
            inCode = true
        case "blockquote":
            endBlock()
            quoteDepth += 1
        case "ul", "ol":
            endLine()
            if lists.isEmpty { endBlock() }
            let start = attributes.first { $0.name == "start" }.flatMap { Int($0.value) } ?? 1
            lists.append((name == "ol", start))
        case "li":
            endLine()
            guard let list = lists.last else { break }
            line = prefix() + String(repeating: "  ", count: lists.count - 1) + (list.numbered ? "\(list.next). " : "• ")
            lists[lists.count - 1].next += 1
        case "tr":
            endLine()
            cells = 0
        case "th", "td":
            if cells > 0 { line += " | " }
            cells += 1
        case "a":
            if let address = attributes.first(where: { $0.name == "href" })?.value { links.append((address, line.count)) }
        default:
            break
        }
    }

    private mutating func close(_ name: String) {
        switch name {
        case "p", "h1", "h2", "h3", "h4", "h5", "h6", "table":
            endBlock()
        case "pre":
            endBlock()
            inCode = false
        case "blockquote":
            endBlock()
            quoteDepth = max(0, quoteDepth - 1)
        case "ul", "ol":
            endLine()
            lists.removeLast()
            if lists.isEmpty { endBlock() }
        case "li", "tr":
            endLine()
        case "a":
            guard let link = links.popLast() else { break }
            // A line break inside the link started a new line: its text is what this line holds.
            let text = line.dropFirst(link.start <= line.count ? link.start : 0).trimmingCharacters(in: .whitespaces)
            if text != link.address, "mailto:" + text != link.address {
                line += text.isEmpty ? link.address : " (\(link.address))"
            }
        default:
            break
        }
    }

    /// Text: in code as it is (each line indented); elsewhere with runs of white space as one space.
    private mutating func write(_ text: String) {
        if inCode {
            for (index, part) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if index > 0 { endLine() }
                if line.isEmpty, !part.isEmpty { line = prefix() + "    " }
                line += part
            }
            return
        }
        for character in text {
            if character.isWhitespace {
                if let last = line.last, !last.isWhitespace { line.append(" ") }
            } else {
                if line.isEmpty { line = prefix() }
                line.append(character)
            }
        }
    }

    /// What begins each line inside a quote.
    private func prefix() -> String { String(repeating: "> ", count: quoteDepth) }

    private mutating func endLine() {
        if !line.trimmingCharacters(in: .whitespaces).isEmpty { lines.append(line) }
        line = ""
    }

    private mutating func endBlock() {
        endLine()
        if lists.isEmpty, lines.last?.isEmpty == false { lines.append("") }
    }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
