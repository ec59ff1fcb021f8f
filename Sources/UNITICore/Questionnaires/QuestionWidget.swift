import Foundation
import UNITIProtocol

/// A terminal widget for one question: it takes keys and draws itself as a few lines. Pure
/// state machines, so tests drive them with keys and read what they would draw.
public protocol QuestionWidget {
    mutating func handle(_ key: Key) -> WidgetStep
    /// The lines to draw now, at most `width` columns wide.
    func render(width: Int) -> [String]
}

/// What a key did.
public enum WidgetStep: Equatable, Sendable {
    /// Keep going (redraw).
    case stay
    /// Enter: the answer (nil = left empty).
    case submit(AnswerValue?)
    /// Enter without an answer on a required item.
    case needsAnswer
    /// Ctrl-C or end of input: abandon.
    case cancel
}

/// A slider with no initial value: before the first key only the track shows, without a thumb,
/// so the person is not anchored to a default position. The first arrow key places the thumb
/// in the middle (Home/End at the ends); arrows then move it by one step, Page Up/Down by a
/// tenth of the range; Backspace takes it away again.
public struct SliderWidget: QuestionWidget {
    public let range: SliderRange
    public let required: Bool
    public let minLabel: String
    public let maxLabel: String
    /// Thumb position (0 = min); nil until the person presses a key.
    public private(set) var position: Int?

    public init(range: SliderRange, required: Bool, minLabel: String, maxLabel: String) {
        self.range = range
        self.required = required
        self.minLabel = minLabel
        self.maxLabel = maxLabel
    }

    public var value: Double? { position.map(range.value(at:)) }

    public mutating func handle(_ key: Key) -> WidgetStep {
        let last = range.positionCount - 1
        let page = max(1, range.positionCount / 10)
        switch key {
        case .left, .right, .up, .down, .pageUp, .pageDown:
            guard let current = position else {
                position = last / 2
                return .stay
            }
            let delta: Int
            switch key {
            case .left, .down: delta = -1
            case .right, .up: delta = 1
            case .pageDown: delta = -page
            default: delta = page
            }
            position = min(last, max(0, current + delta))
        case .home: position = 0
        case .end: position = last
        case .backspace: position = nil
        case .enter:
            if let value { return .submit(.number(value)) }
            return required ? .needsAnswer : .submit(nil)
        case .character("-") where !required:
            return .submit(nil)
        case .interrupt, .endOfInput: return .cancel
        default: break
        }
        return .stay
    }

    public func render(width: Int) -> [String] {
        let valueText = value.map { range.text($0) } ?? ""
        let labels = minLabel.count + maxLabel.count + 8 + max(valueText.count, 3)
        let trackWidth = max(10, min(60, width - labels))
        var track = Array(repeating: Character("─"), count: trackWidth)
        if let position {
            let last = max(range.positionCount - 1, 1)
            let column = Int((Double(position) / Double(last) * Double(trackWidth - 1)).rounded())
            track[column] = "●"
        }
        return ["  \(minLabel) ├\(String(track))┤ \(maxLabel)  \(valueText)"]
    }
}

/// A row of points (an integer scale, or SAM pictograms) with no preselected point. Left and
/// right move the marker (the first press starts in the middle); digits choose a point
/// directly on scales of up to ten points.
public struct PointScaleWidget: QuestionWidget {
    /// The value of each point, left to right.
    public let values: [Int]
    /// What each point shows (numbers, or pictograms).
    public let faces: [String]
    public let required: Bool
    public let caption: String
    public private(set) var selected: Int?

    public init(values: [Int], faces: [String], required: Bool, caption: String) {
        self.values = values
        self.faces = faces
        self.required = required
        self.caption = caption
    }

    public mutating func handle(_ key: Key) -> WidgetStep {
        switch key {
        case .left, .right:
            guard let current = selected else {
                selected = (values.count - 1) / 2
                return .stay
            }
            selected = min(values.count - 1, max(0, current + (key == .left ? -1 : 1)))
        case .home: selected = 0
        case .end: selected = values.count - 1
        case .backspace: selected = nil
        case .character(let character):
            if character == "-", !required { return .submit(nil) }
            if let digit = character.wholeNumberValue, let index = values.firstIndex(of: digit), values.count <= 10 {
                selected = index
            }
        case .enter:
            if let selected { return .submit(.integer(values[selected])) }
            return required ? .needsAnswer : .submit(nil)
        case .interrupt, .endOfInput: return .cancel
        default: break
        }
        return .stay
    }

    public func render(width: Int) -> [String] {
        let cell = max(faces.map(\.count).max() ?? 1, String(values.last ?? 0).count) + 2
        var top = "  ", bottom = "  "
        for (index, face) in faces.enumerated() {
            let mark = index == selected
            let shown = mark ? "[\(face)]" : " \(face) "
            top += shown.padding(toLength: cell + 1, withPad: " ", startingAt: 0)
            let number = String(values[index])
            bottom += (mark ? "^\(number)" : " \(number)").padding(toLength: cell + 1, withPad: " ", startingAt: 0)
        }
        var lines = [top]
        if faces != values.map(String.init) { lines.append(bottom) }
        if !caption.isEmpty { lines.append("  " + caption) }
        return lines
    }
}

/// A vertical list of options: arrows move the cursor, Space selects (again to clear, so a
/// single choice can be reset to unanswered), Enter confirms. For a single choice with nothing
/// selected, Enter takes the option under the cursor.
public struct ChoiceListWidget: QuestionWidget {
    public let values: [Int]
    public let titles: [String]
    public let allowsMany: Bool
    public let required: Bool
    public private(set) var cursor = 0
    public private(set) var selected: [Int] = []

    public init(values: [Int], titles: [String], allowsMany: Bool, required: Bool) {
        self.values = values
        self.titles = titles
        self.allowsMany = allowsMany
        self.required = required
    }

    public mutating func handle(_ key: Key) -> WidgetStep {
        switch key {
        case .up: cursor = max(0, cursor - 1)
        case .down, .tab: cursor = min(values.count - 1, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = values.count - 1
        case .space:
            let value = values[cursor]
            if let index = selected.firstIndex(of: value) {
                selected.remove(at: index)
            } else if allowsMany {
                selected.append(value)
            } else {
                selected = [value]
            }
        case .backspace: selected = []
        case .character("-") where !required:
            return .submit(nil)
        case .enter:
            if allowsMany {
                if selected.isEmpty { return required ? .needsAnswer : .submit(nil) }
                return .submit(.choices(values.filter(selected.contains)))
            }
            if selected.isEmpty { selected = [values[cursor]] }
            return .submit(.integer(selected[0]))
        case .interrupt, .endOfInput: return .cancel
        default: break
        }
        return .stay
    }

    public func render(width: Int) -> [String] {
        values.indices.map { index in
            let pointer = index == cursor ? ">" : " "
            let on = selected.contains(values[index])
            let box = allowsMany ? (on ? "[x]" : "[ ]") : (on ? "(•)" : "( )")
            return String("  \(pointer) \(box) \(titles[index])".prefix(max(width - 1, 20)))
        }
    }
}
