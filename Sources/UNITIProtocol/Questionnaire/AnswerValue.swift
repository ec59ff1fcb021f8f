import Foundation

/// The value of one answer as it crosses the wire: a JSON number (yes/no, single choice, scale,
/// SAM, slider), an array of integers (multiple choice), or a string (free text, a date
/// `YYYY-MM-DD`). Which one an item expects follows from its element type.
public enum AnswerValue: Codable, Hashable, Sendable, CustomStringConvertible {
    case number(Double)
    case choices([Int])
    case text(String)

    public static func integer(_ value: Int) -> AnswerValue { .number(Double(value)) }

    /// Yes/no as Track Your Tinnitus stores it: yes = 0, no = 1.
    public static func yesNo(_ yes: Bool) -> AnswerValue { .number(yes ? 0 : 1) }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let number = try? c.decode(Double.self) {
            self = .number(number)
        } else if let text = try? c.decode(String.self) {
            self = .text(text)
        } else if let list = try? c.decode([Int].self) {
            self = .choices(list)
        } else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "an answer is a number, a string, or an array of integers")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let number):
            if let whole = Self.wholeNumber(number) { try c.encode(whole) } else { try c.encode(number) }
        case .choices(let list): try c.encode(list)
        case .text(let text): try c.encode(text)
        }
    }

    /// The number, when this is one.
    public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an integer, when it is a whole number.
    public var integer: Int? {
        number.flatMap(Self.wholeNumber)
    }

    public var description: String {
        switch self {
        case .number(let value):
            if let whole = Self.wholeNumber(value) { return String(whole) }
            return String(value)
        case .choices(let list): return list.map(String.init).joined(separator: ",")
        case .text(let text): return text
        }
    }

    static func wholeNumber(_ value: Double) -> Int? {
        guard value.isFinite, value.rounded() == value, abs(value) < 9e15 else { return nil }
        return Int(value)
    }
}
