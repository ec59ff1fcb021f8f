import Foundation

/// How every CSV the server writes is written (the answers, the codebook, the adherence report,
/// the SPSS data): RFC 4180 records ending in CRLF, from the console and the command line alike.
///
/// A cell is quoted when its bytes hold a CR, an LF, a quote or the separator. The test is on
/// bytes (UTF-8), not on Swift's `Character`s: `"\r\n"` is one `Character`, equal to neither
/// `"\r"` nor `"\n"`, and a participant's `looks harmless\r\n=2+5` once went out unquoted as two
/// lines (issue 44).
///
/// A cell a spreadsheet would run as a formula gets a leading `'` (OWASP's rule against CSV
/// injection, issue 27), at the start of the cell and at the start of every line inside it: a
/// reader that splits lines (or a person who pastes one) must meet no formula either. A line
/// begins a formula when it starts with `=`, `+`, `-`, `@`, a tab or a carriage return. A cell that
/// is a plain number (`-3`, `-42.5`, `+2`, `-1e-07`) stays as it is, whatever its column: numeric
/// answers and readings are values, and a free-text answer that is only a number runs nothing.
/// JSON, JSON lines and FHIR keep every value as given.
enum CSV {
    /// What becomes of a line break inside a cell.
    enum LineBreaks: Sendable {
        /// Kept, inside the quoted cell (RFC 4180; Python's csv module, R and spreadsheets read it).
        case kept
        /// Written as `\n` and `\r` (and a backslash as `\b`), so each record is one line: SPSS
        /// and GNU PSPP end a quoted cell at a line break (PSPP 1.6.2: "Quoted string extends
        /// beyond end of line"). The SPSS syntax turns them back (``SPSSSyntax``).
        case escaped
    }

    /// One record with its line break (CRLF), each cell neutralised and quoted where needed.
    static func line(_ cells: [String], lineBreaks: LineBreaks = .kept) -> String {
        cells.map { quoted(escaped(neutralised($0), lineBreaks)) }.joined(separator: ",") + "\r\n"
    }

    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]
    /// ``formulaStarts`` as bytes (all are ASCII).
    private static let formulaStartBytes: Set<UInt8> = Set(formulaStarts.map { UInt8($0.value) })

    /// The cell with a `'` before each line that would begin a formula (see the type's description).
    static func neutralised(_ cell: String) -> String {
        // Only a line's first character can begin a formula: a cell whose first byte begins none
        // and that holds no line break is as it was (every time cell has a `-`, none starts one).
        guard let first = cell.utf8.first,
              formulaStartBytes.contains(first) || cell.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }),
              !isPlainNumber(cell) else { return cell }
        var result = String.UnicodeScalarView()
        var lineStart = true
        var scalars = cell.unicodeScalars.makeIterator()
        var next = scalars.next()
        while let scalar = next {
            next = scalars.next()
            if lineStart, formulaStarts.contains(scalar) { result.append("'") }
            result.append(scalar)
            // A line ends at LF, and at CR unless an LF follows (CRLF is one break).
            lineStart = scalar == "\n" || (scalar == "\r" && next != "\n")
        }
        return String(result)
    }

    /// Whether the cell is a plain number, `[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?` (-3, -42.5,
    /// 1e-3): such a cell stays as it is. Checked byte by byte: it runs for every time cell (their
    /// `-` and `+`), and a regex literal is built again at each call (four fifths of a large
    /// export's time went there; Scripts/bench/prompt-table).
    static func isPlainNumber(_ cell: String) -> Bool {
        var bytes = cell.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { (0x30...0x39).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The cell in quotes (a quote doubled) when its bytes hold a CR, an LF, a quote or a comma.
    static func quoted(_ cell: String) -> String {
        guard cell.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x22 || $0 == 0x2C }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func escaped(_ cell: String, _ lineBreaks: LineBreaks) -> String {
        guard lineBreaks == .escaped, cell.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x5C }) else { return cell }
        var result = ""
        for scalar in cell.unicodeScalars {
            switch scalar {
            case "\\": result += "\\b"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
