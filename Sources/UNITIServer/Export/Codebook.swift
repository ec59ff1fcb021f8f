import Foundation
import UNITIProtocol

/// The codebook beside a CSV export, as REDCap gives one: a row per item of every questionnaire
/// version the study has, with its label (the export's `label` column), type, text and how its
/// answers are encoded in the export's `value` column. Written by `export --format csv` and the
/// console's data page alike.
enum Codebook {
    static let header = ["questionnaire", "version", "label", "type", "text", "encoding"]

    /// The codebook of the documents as CSV (the export's quoting and neutralising).
    static func csv(_ documents: [QuestionnaireDocument]) -> String {
        var text = CSV.line(header)
        for document in documents {
            for item in document.definition.items where item.element.isQuestion {
                text += CSV.line([document.id, String(document.version), item.label, item.element.typeName,
                                             item.text?.text(in: "en") ?? "", encoding(item.element)])
            }
        }
        return text
    }

    static let wideHeader = ["file", "column", "questionnaire", "versions", "item", "type", "level", "text", "values"]

    /// The wide files' codebook: a row per column of each wide file (``WideLayout``), the sheet's
    /// columns included: which versions of the questionnaire an item's column covers (empty for
    /// the sheet's own), its type, measurement level, text and how its cells are written.
    static func wideCSV(_ layouts: [WideLayout]) -> String {
        var text = CSV.line(wideHeader)
        for layout in layouts {
            for column in WideLayout.sheetColumns {
                text += CSV.line([layout.file, column.name, layout.questionnaire, "", "", column.type.name, column.level.rawValue,
                                  column.text, column.type.values])
            }
            for variable in layout.variables {
                for column in variable.columns {
                    text += CSV.line([layout.file, column.name, layout.questionnaire, variable.versions.map(String.init).joined(separator: " "),
                                      variable.label, column.type.name, column.level.rawValue, column.text, column.type.values])
                }
            }
        }
        return text
    }

    /// How an element's answer is written in the `value` column.
    static func encoding(_ element: QuestionnaireElement) -> String {
        func options(_ options: [ChoiceOption]) -> String {
            options.map { "\($0.value) = \($0.text.text(in: "en"))" }.joined(separator: "; ")
        }
        switch element {
        case .yesNo: return "0 = yes; 1 = no"
        case .singleChoice(let choices): return options(choices)
        case .multipleChoice(let choices, _, _): return "each chosen value: " + options(choices)
        case .slider(let range): return "number \(AnswerValue.number(range.min)) to \(AnswerValue.number(range.max)), step \(AnswerValue.number(range.step))"
        case .scale(let min, let max, _, _): return "integer \(min) to \(max)"
        case .samValence(let points), .samArousal(let points): return "integer 1 to \(points)"
        case .freeText: return "text"
        case .date: return "date, YYYY-MM-DD"
        case .headline, .text: return ""
        case .unsupported(let name): return "not supported by this server (\(name))"
        }
    }
}
