import Foundation
import UNITIProtocol

/// Numbers as a person reads them: `28.8` in English, `28,8` in German, Spanish, Greek and Dutch. Only for what people
/// read on a page or a screen; exports (CSV, JSON, FHIR) and form values keep the point.
extension Language {
    /// The character between a number's whole part and its fraction.
    public var decimalSeparator: String {
        switch self {
        case .english: "."
        case .german, .spanish, .greek, .dutch: ","
        }
    }

    /// `value` with `fractionDigits` digits after the separator, or, when nil, as few as it
    /// needs (`40`, `40.5`), as answers are written.
    public func number(_ value: Double, fractionDigits: Int? = nil) -> String {
        let text = fractionDigits.map { String(format: "%.\($0)f", value) } ?? AnswerValue.number(value).description
        return decimalSeparator == "." ? text : text.replacingOccurrences(of: ".", with: decimalSeparator)
    }
}

extension SliderRange {
    /// A slider's value with its unit, as people read it in `language`: `54,5 %`.
    public func text(_ value: Double, in language: Language) -> String {
        let number = language.number(value)
        return unit.map { "\(number) \($0)" } ?? number
    }
}
