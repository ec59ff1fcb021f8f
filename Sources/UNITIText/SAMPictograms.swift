import Foundation
import UNITIProtocol

/// Text pictograms for the Self-Assessment Manikin: faces from very unpleasant to very pleasant
/// (valence, "SAM face") and a body from sleepy-calm to very excited (arousal, "SAM body"), as in
/// the Track Your Hearing questionnaire screens (Track Your Hearing thesis, 5.2.1), drawn for the
/// terminal.
///
/// Every figure is ``figureHeight`` rows of exactly ``figureWidth`` one-column characters (ASCII
/// and box drawing), so a row of them lines up in any terminal. The 9-point figures are the five
/// of the 5-point scale at the odd points with one in-between figure at each even point; a
/// 5-point item therefore uses every other figure of the 9. Where a row of figures does not fit
/// the terminal, the one-line ``compactGlyphs(for:)`` stand in.
///
/// Topics: ``figures(for:)``, ``lines(figures:selected:highlight:)``, ``endLabels(for:)``.
public enum SAMPictograms {
    /// Columns of one figure.
    public static let figureWidth = 7
    /// Rows of one figure.
    public static let figureHeight = 4
    /// Columns before the first figure, as the other widgets indent.
    private static let indent = "  "
    /// Columns between two figures.
    private static let gap = " "

    /// Faces: eyes go from tears to closed-happy, the mouth from a wide frown over a straight line
    /// to a wide grin.
    private static let valence: [[String]] = [
        face(eyes: "╥ ╥", mouth: "╱───╲"),  // 1 very unpleasant
        face(eyes: "- -", mouth: "╭───╮"),
        face(eyes: "- -", mouth: " ╭─╮ "),  // 3
        face(eyes: "o o", mouth: " ╭─╮ "),
        face(eyes: "o o", mouth: " ─── "),  // 5 neither
        face(eyes: "o o", mouth: " ╰─╯ "),
        face(eyes: "^ ^", mouth: " ╰─╯ "),  // 7
        face(eyes: "^ ^", mouth: "╰───╯"),
        face(eyes: "^ ^", mouth: "╲___╱"),  // 9 very pleasant
    ]

    /// Bodies: asleep, standing still, arms out, arms up, and ever more lines of agitation around.
    private static let arousal: [[String]] = [
        ["    zZ ", "   o   ", "  /|\\  ", "  / \\  "],  // 1 very calm, dozing
        ["     z ", "   o   ", "  /|\\  ", "  / \\  "],
        ["       ", "   o   ", "  /|\\  ", "  / \\  "],  // 3 calm, awake
        ["       ", "   o   ", "  -|-  ", "  / \\  "],
        ["       ", " ' o ' ", "  -|-  ", "  / \\  "],  // 5 alert
        ["       ", " '\\o/' ", "   |   ", "  / \\  "],
        [" '   ' ", "- \\o/ -", "   |   ", "  / \\  "],  // 7 excited
        [" \\ ' / ", "- \\o/ -", "-  |  -", "  / \\  "],
        ["\\ \\|/ /", "= \\o/ =", "-  |  -", " '/ \\' "],  // 9 very excited
    ]

    /// One-line forms, for terminals too narrow for a row of figures.
    private static let compactValence = ["(>_<)", "(T_T)", "(;_;)", "(-_-)", "(._.)", "(o_o)", "(^_^)", "(^o^)", "(^O^)"]
    private static let compactArousal = ["(-.-)z", "(-_-)", "(._.)", "(o_o)", "(O_O)", "(O_O)!", "(@_@)!", "(@o@)!!", "(@O@)!!!"]

    private static func face(eyes: String, mouth: String) -> [String] {
        ["╭─────╮", "│ \(eyes) │", "│\(mouth)│", "╰─────╯"]
    }

    /// The figures of a SAM item, left to right (empty for other elements).
    public static func figures(for element: QuestionnaireElement) -> [[String]] {
        switch element {
        case .samValence(let points): return pick(valence, points)
        case .samArousal(let points): return pick(arousal, points)
        default: return []
        }
    }

    /// The one-line forms of a SAM item's figures.
    public static func compactGlyphs(for element: QuestionnaireElement) -> [String] {
        switch element {
        case .samValence(let points): return pick(compactValence, points)
        case .samArousal(let points): return pick(compactArousal, points)
        default: return []
        }
    }

    /// String-table keys naming both ends.
    package static func endLabels(for element: QuestionnaireElement) -> [String] {
        if case .samArousal = element { return ["questionnaire.sam.calm", "questionnaire.sam.excited"] }
        return ["questionnaire.sam.unpleasant", "questionnaire.sam.pleasant"]
    }

    /// How the chosen figure stands out.
    public enum Highlight: Sendable {
        /// Reverse video over the figure and its number (a terminal that shows ANSI attributes).
        case reverseVideo
        /// A line of `^` under the number (pipes, tests): one line more, empty while nothing is chosen.
        case markerLine
        /// Nothing is chosen here (the line protocol shows the figures once).
        case none
    }

    /// Columns a row of `count` figures takes, indent included.
    package static func rowWidth(count: Int) -> Int {
        indent.count + count * figureWidth + max(count - 1, 0) * gap.count
    }

    /// The figures side by side with their numbers (1…n) centred under them, and the figure at
    /// index `selected` highlighted. Trailing blanks are dropped.
    package static func lines(figures: [[String]], selected: Int?, highlight: Highlight) -> [String] {
        let numbers = figures.indices.map { centred(String($0 + 1)) }
        let columns = (0..<figureHeight).map { row in figures.map { $0[row] } } + [numbers]
        var lines = columns.map { cells in
            let shown = cells.enumerated().map { index, cell in
                highlight == .reverseVideo && index == selected ? reverse + cell + reset : cell
            }
            return trimmed(indent + shown.joined(separator: gap))
        }
        if highlight == .markerLine {
            let marker = selected.map { index in
                indent + String(repeating: " ", count: index * (figureWidth + gap.count))
                    + String(repeating: "^", count: figureWidth)
            }
            lines.append(marker ?? "")
        }
        return lines
    }

    private static let reverse = "\u{1B}[7m"
    private static let reset = "\u{1B}[0m"

    private static func centred(_ text: String) -> String {
        let left = (figureWidth - text.count) / 2
        return String(repeating: " ", count: left) + text
            + String(repeating: " ", count: max(figureWidth - left - text.count, 0))
    }

    private static func trimmed(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }

    private static func pick<T>(_ all: [T], _ points: Int) -> [T] {
        points == 5 ? stride(from: 0, to: all.count, by: 2).map { all[$0] } : all
    }
}
