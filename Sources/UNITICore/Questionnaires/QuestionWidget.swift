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
    /// Enter on a number typed on a slider that is not one of its values (outside its range or
    /// between its steps); the text typed is given back, and stays for the person to correct.
    case notOnSlider(String)
    /// Ctrl-C or end of input: abandon.
    case cancel
}

/// A slider with no initial value: before the first key only the track shows, without a thumb,
/// so the person is not anchored to a default position. The first arrow key places the thumb
/// in the middle (Home/End at the ends); arrows then move it by one step, Page Up/Down by a
/// tenth of the range; Backspace takes it away again.
///
/// A number can be typed instead ("how stressed, 0 to 100": `7`, `0`, Enter): the thumb follows
/// the typed number while it is one of the slider's values, and Enter takes it; a number
/// outside the range or between the steps is refused (``WidgetStep/notOnSlider(_:)``) and stays
/// to be corrected. Backspace removes the last typed character; an arrow key leaves the typed
/// number and moves the thumb from where it stands.
public struct SliderWidget: QuestionWidget {
    public let range: SliderRange
    public let required: Bool
    public let minLabel: String
    public let maxLabel: String
    /// Thumb position (0 = min); nil until the person presses a key.
    public private(set) var position: Int?
    /// The number being typed, "" when none.
    public private(set) var typed = ""

    public init(range: SliderRange, required: Bool, minLabel: String, maxLabel: String) {
        self.range = range
        self.required = required
        self.minLabel = minLabel
        self.maxLabel = maxLabel
    }

    public var value: Double? { position.map(range.value(at:)) }

    /// The position of a typed number, nil when it is not one of the slider's values. A decimal
    /// comma is read as a point, as in the line protocol.
    func position(of text: String) -> Int? {
        guard let number = Double(text.replacingOccurrences(of: ",", with: ".")), range.contains(number) else { return nil }
        return range.step > 0 ? Int(((number - range.min) / range.step).rounded()) : 0
    }

    /// Whether `character` may extend the typed number: digits, one decimal separator, and a
    /// leading minus on a slider that reaches below zero (elsewhere `-` leaves an optional item).
    private func extendsTyped(_ character: Character) -> Bool {
        if character.isASCII, character.isNumber { return true }
        if character == "." || character == "," { return !typed.contains(".") && !typed.contains(",") }
        return character == "-" && typed.isEmpty && range.min < 0
    }

    public mutating func handle(_ key: Key) -> WidgetStep {
        let last = range.positionCount - 1
        let page = max(1, range.positionCount / 10)
        switch key {
        case .character(let character) where extendsTyped(character):
            typed.append(character)
            if let typedPosition = position(of: typed) { position = typedPosition }
            return .stay
        case .backspace where !typed.isEmpty:
            typed.removeLast()
            if let typedPosition = position(of: typed) { position = typedPosition }
            return .stay
        default:
            break
        }
        if key != .enter { typed = "" }
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
            if !typed.isEmpty {
                guard let typedPosition = position(of: typed) else { return .notOnSlider(typed) }
                position = typedPosition
                typed = ""
            }
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
        let valueText = typed.isEmpty ? (value.map { range.text($0, in: CurrentLanguage.value) } ?? "") : typed + "_"
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

/// Choosing by number with the digit keys: on a list or scale of up to ten, one digit chooses;
/// where numbers have two or more digits, digits typed one after another make one number
/// (`1` then `2` is 12, and 1 is chosen until the `2` comes), and a digit that would make no
/// choice starts a new number. Any other key ends the number, so `2` after an arrow key is 2.
struct TypedChoice {
    private var digits = ""

    /// The choice after `digit`, given which numbers are choices; nil when it makes none.
    mutating func type(_ digit: Int, isChoice: (Int) -> Bool) -> Int? {
        if !digits.isEmpty, let longer = Int(digits + String(digit)), isChoice(longer) {
            digits += String(digit)
            return longer
        }
        guard isChoice(digit) else {
            digits = ""
            return nil
        }
        digits = String(digit)
        return digit
    }

    /// The number typed so far, nil when none.
    var number: Int? { Int(digits) }

    /// Whether the last digit extended the number before it (rather than starting one).
    var isExtended: Bool { digits.count > 1 }

    mutating func end() { digits = "" }
}

/// A row of points (an integer scale, or SAM pictograms) with no preselected point. Left and
/// right move the marker (the first press starts in the middle); digits choose a point by its
/// value (``TypedChoice``: on a scale from 0 to 10, `1` `0` is 10).
public struct PointScaleWidget: QuestionWidget {
    /// The value of each point, left to right.
    public let values: [Int]
    /// What each point shows (numbers, or pictograms).
    public let faces: [String]
    public let required: Bool
    public let caption: String
    public private(set) var selected: Int?
    private var typing = TypedChoice()

    public init(values: [Int], faces: [String], required: Bool, caption: String) {
        self.values = values
        self.faces = faces
        self.required = required
        self.caption = caption
    }

    public mutating func handle(_ key: Key) -> WidgetStep {
        if case .character(let character) = key, character.isASCII, let digit = character.wholeNumberValue {
            if let value = typing.type(digit, isChoice: values.contains), let index = values.firstIndex(of: value) {
                selected = index
            }
            return .stay
        }
        typing.end()
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
        case .character("-") where !required:
            return .submit(nil)
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

/// A vertical list of options, each with its number: nothing is chosen until the person
/// chooses (the cursor on the first option chooses nothing). A digit chooses the option with
/// that number (``TypedChoice``: on a list of ten or more, `1` `2` is option 12); arrows move the
/// cursor and Space selects the option under it (again to clear, so a single choice can be
/// reset to unanswered); on a multiple choice a number or Space ticks or unticks. Enter
/// confirms what is chosen; with nothing chosen it says that a required item needs an answer
/// and leaves an optional one unanswered.
public struct ChoiceListWidget: QuestionWidget {
    public let values: [Int]
    public let titles: [String]
    public let allowsMany: Bool
    public let required: Bool
    public private(set) var cursor = 0
    public private(set) var selected: [Int] = []
    private var typing = TypedChoice()

    public init(values: [Int], titles: [String], allowsMany: Bool, required: Bool) {
        self.values = values
        self.titles = titles
        self.allowsMany = allowsMany
        self.required = required
    }

    public mutating func handle(_ key: Key) -> WidgetStep {
        if case .character(let character) = key, character.isASCII, let digit = character.wholeNumberValue {
            let shorter = typing.number
            if let number = typing.type(digit, isChoice: { (1...values.count).contains($0) }) {
                // A digit that extends the number takes back what the shorter number ticked.
                if allowsMany, typing.isExtended, let shorter { toggle(shorter - 1) }
                cursor = number - 1
                if allowsMany { toggle(cursor) } else { selected = [values[cursor]] }
            }
            return .stay
        }
        typing.end()
        switch key {
        case .up: cursor = max(0, cursor - 1)
        case .down, .tab: cursor = min(values.count - 1, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = values.count - 1
        case .space: toggle(cursor)
        case .backspace: selected = []
        case .character("-") where !required:
            return .submit(nil)
        case .enter:
            if selected.isEmpty { return required ? .needsAnswer : .submit(nil) }
            return allowsMany ? .submit(.choices(values.filter(selected.contains))) : .submit(.integer(selected[0]))
        case .interrupt, .endOfInput: return .cancel
        default: break
        }
        return .stay
    }

    /// Ticks or unticks the option at `index` (a single choice holds at most one).
    private mutating func toggle(_ index: Int) {
        let value = values[index]
        if let at = selected.firstIndex(of: value) {
            selected.remove(at: at)
        } else {
            selected = allowsMany ? selected + [value] : [value]
        }
    }

    public func render(width: Int) -> [String] {
        let digits = String(values.count).count
        return values.indices.map { index in
            let pointer = index == cursor ? ">" : " "
            let on = selected.contains(values[index])
            let box = allowsMany ? (on ? "[x]" : "[ ]") : (on ? "(•)" : "( )")
            let number = String(repeating: " ", count: digits - String(index + 1).count) + String(index + 1)
            return String("  \(pointer) \(box) \(number) \(titles[index])".prefix(max(width - 1, 20)))
        }
    }
}
