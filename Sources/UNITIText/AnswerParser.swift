import Foundation
import UNITIProtocol

/// Reads an answer typed as one line (the plain line protocol, and text entry on a terminal):
/// `y`/`n`/`yes`/`no`/`ja`/`nein` for yes/no, numbers (a decimal comma is accepted), option
/// values separated by commas, free text, `YYYY-MM-DD` dates, and `-` for "leave it empty".
/// Also says, in the person's language, what an item accepts.
public enum AnswerParser {
    /// What a typed line means for an item.
    public enum Reading: Equatable, Sendable {
        case value(AnswerValue)
        /// `-`: leave the item empty (or reset a single choice).
        case empty
        /// Not understandable for this item.
        case malformed
    }

    public static func read(_ line: String, for element: QuestionnaireElement) -> Reading {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text == "-" { return .empty }
        switch element {
        case .yesNo:
            let word = text.lowercased()
            if AnswerWords.yes.contains(word) { return .value(.yesNo(true)) }
            if AnswerWords.no.contains(word) { return .value(.yesNo(false)) }
            return .malformed
        case .singleChoice, .scale, .samValence, .samArousal:
            guard let number = Int(text) else { return .malformed }
            return .value(.integer(number))
        case .slider:
            guard let number = Double(text.replacingOccurrences(of: ",", with: ".")), number.isFinite else { return .malformed }
            return .value(.number(number))
        case .multipleChoice:
            if text.isEmpty { return .malformed }
            var selected: [Int] = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let number = Int(part.trimmingCharacters(in: .whitespaces)) else { return .malformed }
                selected.append(number)
            }
            return .value(.choices(selected))
        case .freeText:
            if text.isEmpty { return .malformed }
            // One line carries a multi-line answer with "\n" written out.
            return .value(.text(line.replacingOccurrences(of: "\\n", with: "\n")))
        case .date:
            guard CalendarDay.isValid(text) else { return .malformed }
            return .value(.text(text))
        case .headline, .text, .unsupported:
            return .malformed
        }
    }

    /// One sentence saying what the item accepts, e.g. "Type a whole number from 0 to 7, or -
    /// to leave it empty." With `mayLeaveForLater` (a required item on a page) it also says that
    /// `-` or an empty line leaves the item for later.
    public static func accepted(for item: QuestionnaireItem, localizer: Localizer, mayLeaveForLater: Bool = false) -> String {
        let l = localizer
        var sentence: String
        switch item.element {
        case .yesNo:
            sentence = l("questionnaire.accept.yesNo")
        case .singleChoice(let options):
            sentence = l("questionnaire.accept.single", ["values": options.map { String($0.value) }.joined(separator: ", ")])
        case .multipleChoice(let options, let low, let high):
            sentence = l("questionnaire.accept.multiple", ["values": options.map { String($0.value) }.joined(separator: ", ")])
            if let low, low > 1 { sentence += " " + l("questionnaire.accept.atLeast", ["count": String(low)]) }
            if let high { sentence += " " + l("questionnaire.accept.atMost", ["count": String(high)]) }
        case .slider(let range):
            sentence = l("questionnaire.accept.slider", [
                "min": number(range.min), "max": number(range.max), "step": number(range.step),
            ])
        case .scale(let min, let max, _, _):
            sentence = l("questionnaire.accept.whole", ["min": String(min), "max": String(max)])
        case .samValence(let points), .samArousal(let points):
            sentence = l("questionnaire.accept.whole", ["min": "1", "max": String(points)])
        case .freeText(_, let maxLength):
            sentence = maxLength.map { l("questionnaire.accept.textLimited", ["max": String($0)]) } ?? l("questionnaire.accept.text")
        case .date:
            sentence = l("questionnaire.accept.date")
        case .headline, .text, .unsupported:
            return ""
        }
        if item.required {
            sentence += " " + (mayLeaveForLater ? l("questionnaire.page.accept.later") : l("questionnaire.accept.required"))
        } else {
            sentence += " " + l("questionnaire.accept.optional")
        }
        return sentence
    }

    /// The short hint shown in the prompt, e.g. "(0–7)" or "(y/n)"; on a page a required item's
    /// hint says it can be left for later.
    public static func hint(for item: QuestionnaireItem, localizer: Localizer, mayLeaveForLater: Bool = false) -> String {
        let range: String
        switch item.element {
        case .yesNo: range = localizer("questionnaire.hint.yesNo")
        case .singleChoice(let options): range = options.map { String($0.value) }.joined(separator: "/")
        case .multipleChoice(let options, _, _):
            range = localizer("questionnaire.hint.multiple", ["values": options.map { String($0.value) }.joined(separator: ",")])
        case .slider(let r): range = "\(number(r.min))–\(number(r.max))" + (r.unit.map { " \($0)" } ?? "")
        case .scale(let min, let max, _, _): range = "\(min)–\(max)"
        case .samValence(let points), .samArousal(let points): range = "1–\(points)"
        case .freeText: range = localizer("questionnaire.hint.text")
        case .date: range = localizer("questionnaire.hint.date")
        case .headline, .text, .unsupported: return ""
        }
        guard item.required else { return "(\(range), \(localizer("questionnaire.hint.skip")))" }
        return mayLeaveForLater ? "(\(range), \(localizer("questionnaire.page.hint.later")))" : "(\(range))"
    }

    static func number(_ value: Double) -> String {
        AnswerValue.number(value).description
    }
}
