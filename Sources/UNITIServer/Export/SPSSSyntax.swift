import Foundation
import UNITIProtocol

/// SPSS syntax beside the SPSS data (the CSV export written one record per line,
/// ``ExportFormat/spss``), as REDCap offers it: reads the data (one row per answer,
/// ``StudyExport/header``) with a type per column, turns the line breaks written as `\n` and
/// `\r` back into line breaks, makes one variable per questionnaire item of
/// the codebook (``Codebook``) with the item's type, text and value labels, and folds the rows
/// into one case per sheet. Runs in SPSS and in GNU PSPP alike (only commands both know).
///
/// Numbers are read with `NUMBER(value, F…)`, so a numeric item holds numbers; choices of several
/// options, free text and dates stay text (their CSV cell is the answer as written). A value a
/// spreadsheet would run as a formula begins with `'` in the CSV (``CSV/neutralised(_:)``),
/// and so it does here.
enum SPSSSyntax {
    /// The name of the SPSS data file of a study (the syntax reads it from its own folder).
    static func dataFileName(study: String) -> String { "\(study)-answers-spss.csv" }

    /// The syntax for the SPSS data file named `file` with the documents' items.
    static func syntax(data file: String, _ documents: [QuestionnaireDocument]) -> String {
        let items = Self.items(documents)
        var lines = [
            "* UNITI: reads \(file) (the SPSS data export) with the codebook's types and value labels.",
            "* Put this file beside the CSV; one case per answer is read, then one case per sheet is made.",
            "GET DATA /TYPE=TXT /FILE='\(escape(file))' /ENCODING='UTF8' /ARRANGEMENT=DELIMITED /DELCASE=LINE",
            "  /DELIMITERS=',' /QUALIFIER='\"' /FIRSTCASE=2",
            "  /VARIABLES=",
        ]
        lines += columns.map { "    \($0.name) \($0.format)" }
        lines[lines.count - 1] += "."
        // A line break inside a cell is written as \n or \r and a backslash as \b (each record
        // one line: SPSS and PSPP end a quoted cell at a line break); back to what was answered.
        for column in columns where column.format.hasPrefix("A") {
            lines.append("COMPUTE \(column.name) = REPLACE(\(column.name), '\\n', X'0A').")
            lines.append("COMPUTE \(column.name) = REPLACE(\(column.name), '\\r', X'0D').")
            lines.append("COMPUTE \(column.name) = REPLACE(\(column.name), '\\b', '\\').")
        }
        for item in items {
            let match = "(questionnaire = '\(escape(item.questionnaire))' AND version = \(item.version) AND label = '\(escape(item.label))')"
            if let format = item.format {
                // F32.0 reads a written decimal point as it stands ("42.5"); F32.d would put one
                // into a number written without ("40" as 0.000…40).
                lines.append("NUMERIC \(item.name) (\(format)).")
                lines.append("IF \(match) \(item.name) = NUMBER(value, F32.0).")
            } else {
                lines.append("STRING \(item.name) (A\(textWidth)).")
                lines.append("IF \(match) \(item.name) = value.")
            }
        }
        // One case per sheet: each item's variable holds a value on its answer's row only, so the
        // largest of the sheet's rows is the answer (numbers skip the others' missing values,
        // text sorts above the others' empty strings).
        if !items.isEmpty {
            lines.append("AGGREGATE /OUTFILE=*")
            lines.append("  /BREAK=" + columns.filter(\.perSheet).map(\.name).joined(separator: " "))
            lines += items.map { "  /\($0.name) = MAX(\($0.name))" }
            lines[lines.count - 1] += "."
        }
        for item in items {
            lines.append("VARIABLE LABELS \(item.name) '\(escape(limited(item.text, bytes: 250)))'.")
            if !item.valueLabels.isEmpty {
                lines.append("VALUE LABELS \(item.name) " + item.valueLabels.map { "\($0.value) '\(escape(limited($0.text, bytes: 120)))'" }
                    .joined(separator: " ") + ".")
            }
        }
        lines.append("EXECUTE.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A CSV column as the syntax reads it: its SPSS input format, and whether it is the same on
    /// every row of a sheet (kept after folding) or belongs to one answer.
    struct Column {
        var name: String
        var format: String
        var perSheet: Bool
    }

    /// The width of a text answer's variable (a free text's longest allowed answer is far shorter).
    static let textWidth = 4000

    /// ``StudyExport/header`` with formats; a test holds the two together.
    static let columns: [Column] = [
        Column(name: "participant", format: "A32", perSheet: true), Column(name: "sheet", format: "A36", perSheet: true),
        Column(name: "questionnaire", format: "A100", perSheet: true), Column(name: "version", format: "F8.0", perSheet: true),
        Column(name: "label", format: "A100", perSheet: false), Column(name: "value", format: "A\(textWidth)", perSheet: false),
        Column(name: "answered_at", format: "A40", perSheet: false), Column(name: "started_at", format: "A40", perSheet: true),
        Column(name: "ended_at", format: "A40", perSheet: true), Column(name: "received_at", format: "A40", perSheet: true),
        Column(name: "module", format: "A16", perSheet: true), Column(name: "microphone_dbfs", format: "F12.4", perSheet: true),
        Column(name: "microphone_measured_at", format: "A40", perSheet: true), Column(name: "latitude", format: "F16.8", perSheet: true),
        Column(name: "longitude", format: "F16.8", perSheet: true), Column(name: "altitude_m", format: "F12.3", perSheet: true),
        Column(name: "accuracy_m", format: "F12.3", perSheet: true), Column(name: "location_measured_at", format: "A40", perSheet: true),
        Column(name: "consent_version", format: "F8.0", perSheet: true), Column(name: "prompt_id", format: "A200", perSheet: true),
        Column(name: "prompted_at", format: "A40", perSheet: true), Column(name: "late", format: "A5", perSheet: true),
    ]

    /// One questionnaire item as a variable.
    struct Item {
        var name: String
        var questionnaire: String
        var version: Int
        var label: String
        var text: String
        /// The display format of a numeric item; nil for text.
        var format: String?
        var valueLabels: [(value: String, text: String)]
    }

    /// The items that take answers, each with a variable name of its own: `questionnaire_vN_label`
    /// made a valid SPSS name, or `itemN` where that is too long or taken.
    static func items(_ documents: [QuestionnaireDocument]) -> [Item] {
        var names = Set(columns.map { $0.name.lowercased() })
        var items: [Item] = []
        for document in documents {
            for item in document.definition.items where item.element.isQuestion {
                var name = variableName("\(document.id)_v\(document.version)_\(item.label)")
                if name.utf8.count > 64 || names.contains(name.lowercased()) { name = "item\(items.count + 1)" }
                names.insert(name.lowercased())
                let (format, labels) = kind(item.element)
                items.append(Item(name: name, questionnaire: document.id, version: document.version, label: item.label,
                                  text: item.text?.text(in: "en") ?? item.label, format: format, valueLabels: labels))
            }
        }
        return items
    }

    /// The display format of a numeric answer (nil: text), and the labels of its values.
    static func kind(_ element: QuestionnaireElement) -> (format: String?, labels: [(value: String, text: String)]) {
        switch element {
        case .yesNo: ("F8.0", [("0", "yes"), ("1", "no")])
        case .singleChoice(let options): ("F8.0", options.map { (value: String($0.value), text: $0.text.text(in: "en")) })
        case .scale, .samValence, .samArousal: ("F8.0", [])
        case .slider: ("F16.4", [])
        case .multipleChoice, .freeText, .date, .headline, .text, .unsupported: (nil, [])
        }
    }

    /// Letters, digits and `_`, beginning with a letter (SPSS's and PSPP's rule, without the
    /// few special characters, so no name is a reserved word such as `AND` or `TO`: every one
    /// has a `_v`).
    static func variableName(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)) ? Character(scalar) : "_"
        })
        return cleaned.first?.isLetter == true ? cleaned : "q_" + cleaned
    }

    /// A quoted string's content: one line, `'` doubled.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "'", with: "''")
    }

    /// The text cut to at most `bytes` UTF-8 bytes, on a character boundary (label limits).
    static func limited(_ text: String, bytes: Int) -> String {
        var result = ""
        for character in text {
            guard result.utf8.count + String(character).utf8.count <= bytes else { break }
            result.append(character)
        }
        return result
    }
}
