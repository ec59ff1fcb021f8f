import Foundation
import UNITIProtocol

/// SPSS syntax beside the SPSS data (the CSV export written one record per line,
/// ``ExportFormat/spss``), as REDCap offers it: reads the data (one row per answer,
/// ``StudyExport/header``) with a type per column, turns the line breaks written as `\n` and
/// `\r` back into line breaks, makes one variable per questionnaire item of the codebook
/// (``Codebook``) with the item's type, text, value labels and measurement level, and folds the
/// rows into one case per sheet. Runs in SPSS and in GNU PSPP alike (only commands both know).
///
/// - Times with the participant's offset become `DATETIME` variables in UTC, each with
///   `<name>_offset`, the offset in minutes (local time = UTC + offset); the server's receive
///   time is UTC already. `late` becomes 0/1.
/// - Yes/no and single choices are numbers with value labels, `NOMINAL`; rating scales and the
///   SAM pictograms `ORDINAL`; sliders `SCALE`; dates `DATE`.
/// - A multiple choice keeps its chosen values as written (`2,3`) and gets one 0/1 variable per
///   option, grouped as a multiple dichotomy set (`MRSETS /MDGROUP`).
///
/// Numbers are read with `NUMBER(value, F…)`, so a numeric item holds numbers; free text stays
/// text (its CSV cell is the answer as written). A value a spreadsheet would run as a formula
/// begins with `'` in the CSV (``CSV/neutralised(_:)``), and so it does here.
enum SPSSSyntax {
    /// The name of the SPSS data file of a study (the syntax reads it from its own folder).
    static func dataFileName(study: String) -> String { ExportFileNames.spssData(study: study) }

    /// The syntax for the SPSS data file named `file` with the documents' items.
    static func syntax(data file: String, _ documents: [QuestionnaireDocument]) -> String {
        let items = Self.items(documents)
        var lines = [
            "* UNITI: reads \(file) (the SPSS data export) with the codebook's types, labels and levels.",
            "* Put this file beside the CSV and run it there (in SPSS: CD 'that folder'. first);",
            "* one case per answer is read, then one case per sheet is made. Times are in UTC, each with",
            "* an _offset variable: the participant's UTC offset in minutes (local time = UTC + offset).",
            "GET DATA /TYPE=TXT /FILE='\(escape(file))' /ENCODING='UTF8' /ARRANGEMENT=DELIMITED /DELCASE=LINE",
            "  /DELIMITERS=',' /QUALIFIER='\"' /FIRSTCASE=2",
            "  /VARIABLES=",
        ]
        lines += columns.map { "    \($0.readName) \($0.format)" }
        lines[lines.count - 1] += "."
        // A line break inside a cell is written as \n or \r and a backslash as \b (each record
        // one line: SPSS and PSPP end a quoted cell at a line break); back to what was answered.
        for column in columns where column.format.hasPrefix("A") && column.time == nil && column.name != "late" {
            lines.append("COMPUTE \(column.name) = REPLACE(\(column.name), '\\n', X'0A').")
            lines.append("COMPUTE \(column.name) = REPLACE(\(column.name), '\\r', X'0D').")
            lines.append("COMPUTE \(column.name) = REPLACE(\(column.name), '\\b', '\\').")
        }
        for column in columns {
            if let time = column.time { lines += Self.time(column.readName, into: column.name, offset: time == .local) }
        }
        lines.append("NUMERIC late (F1.0).")
        lines.append("IF late_text = 'true' late = 1.")
        lines.append("IF late_text = 'false' late = 0.")
        for item in items {
            let versions = item.versions.map(String.init).joined(separator: ", ")
            let match = "(questionnaire = '\(escape(item.questionnaire))' AND ANY(version, \(versions)) AND label = '\(escape(item.label))')"
            switch item.kind {
            case .number(let format):
                // F32.0 reads a written decimal point as it stands ("42.5"); F32.d would put one
                // into a number written without ("40" as 0.000…40).
                lines.append("NUMERIC \(item.name) (\(format)).")
                lines.append("IF \(match) \(item.name) = NUMBER(value, F32.0).")
            case .date:
                lines.append("NUMERIC \(item.name) (DATE11).")
                lines.append("IF \(match) \(item.name) = DATE.DMY(NUMBER(SUBSTR(value, 9, 2), F2.0), NUMBER(SUBSTR(value, 6, 2), F2.0), NUMBER(SUBSTR(value, 1, 4), F4.0)).")
            case .text:
                lines.append("STRING \(item.name) (A\(textWidth)).")
                lines.append("IF \(match) \(item.name) = value.")
            }
            for option in item.options {
                // Chosen when ",value," is in ",2,3,".
                lines.append("NUMERIC \(option.name) (F1.0).")
                lines.append("IF \(match) \(option.name) = INDEX(CONCAT(',', RTRIM(value), ','), ',\(option.value),') > 0.")
            }
        }
        // One case per sheet: each item's variable holds a value on its answer's row only, so the
        // largest of the sheet's rows is the answer (numbers skip the others' missing values,
        // text sorts above the others' empty strings).
        let itemVariables = items.flatMap { [$0.name] + $0.options.map(\.name) }
        lines.append("AGGREGATE /OUTFILE=*")
        lines.append("  /BREAK=" + sheetVariables.map(\.name).joined(separator: " "))
        lines += itemVariables.map { "  /\($0) = MAX(\($0))" }
        if itemVariables.isEmpty { lines.append("  /answers = N") }
        lines[lines.count - 1] += "."
        for variable in sheetVariables {
            lines.append("VARIABLE LABELS \(variable.name) '\(escape(limited(variable.text, bytes: 250)))'.")
            lines.append("VARIABLE LEVEL \(variable.name) (\(variable.level.rawValue.uppercased())).")
        }
        lines.append("VALUE LABELS late 0 'no' 1 'yes'.")
        if itemVariables.isEmpty { lines.append("VARIABLE LABELS answers 'Rows of the sheet (it has no answers)'.") }
        for item in items {
            lines.append("VARIABLE LABELS \(item.name) '\(escape(limited(item.text, bytes: 250)))'.")
            lines.append("VARIABLE LEVEL \(item.name) (\(item.level.rawValue.uppercased())).")
            if !item.valueLabels.isEmpty {
                lines.append("VALUE LABELS \(item.name) " + item.valueLabels.map { "\($0.value) '\(escape(limited($0.text, bytes: 120)))'" }
                    .joined(separator: " ") + ".")
            }
            for option in item.options {
                lines.append("VARIABLE LABELS \(option.name) '\(escape(limited(item.text, bytes: 125))): \(escape(limited(option.text, bytes: 120)))'.")
                lines.append("VARIABLE LEVEL \(option.name) (NOMINAL).")
                lines.append("VALUE LABELS \(option.name) 0 'not chosen' 1 'chosen'.")
            }
        }
        for (index, item) in items.enumerated() where item.options.count >= 2 {
            let set = "$" + (item.name.utf8.count < 60 ? item.name : "mc\(index + 1)")
            lines.append("MRSETS /MDGROUP NAME=\(set) LABEL='\(escape(limited(item.text, bytes: 250)))'")
            lines.append("  VARIABLES=\(item.options.map(\.name).joined(separator: " ")) VALUE=1.")
        }
        lines.append("EXECUTE.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The syntax for the prompt table (``PromptTable``) in the CSV named `file`: one case per
    /// prompt, as the CSV has it. Its cells hold no free text (ids, outcomes, numbers, times), so
    /// the CSV is read as downloaded. A `_utc` time becomes a UTC `DATETIME`; a `_local` one the
    /// participant's clock time as a `DATETIME` (what "prompts in the evening" asks about), its
    /// distance from UTC being `utc_offset_minutes`. `snoozed` is 0/1 with labels; the outcome,
    /// the ids and the channel are strings (nominal).
    static func promptTable(data file: String) -> String {
        var lines = [
            "* UNITI: reads \(file) (the prompt table: one row per prompt of every participant).",
            "* Put this file beside the CSV and run it there (in SPSS: CD 'that folder'. first).",
            "* Times ending in _utc are UTC; those ending in _local are the participant's clock time",
            "* (utc_offset_minutes: how far that clock was from UTC, local time = UTC + offset).",
            "GET DATA /TYPE=TXT /FILE='\(escape(file))' /ENCODING='UTF8' /ARRANGEMENT=DELIMITED /DELCASE=LINE",
            "  /DELIMITERS=',' /QUALIFIER='\"' /FIRSTCASE=2",
            "  /VARIABLES=",
        ]
        let times = PromptTable.columns.filter { [.utcTime, .localTime].contains($0.type) }.map(\.name)
        lines += PromptTable.columns.map { column in
            switch column.type {
            case .utcTime, .localTime: "    \(column.name)_text A40"
            case .integer: "    \(column.name) F12.0"
            case .chosen: "    \(column.name) F1.0"
            default: "    \(column.name) A255"
            }
        }
        lines[lines.count - 1] += "."
        for column in PromptTable.columns where times.contains(column.name) {
            lines += time("\(column.name)_text", into: column.name, offset: false, clock: column.type == .localTime)
        }
        lines.append("EXECUTE.")
        lines.append("DELETE VARIABLES \(times.map { "\($0)_text" }.joined(separator: " ")).")
        for column in PromptTable.columns {
            let text = column.type == .utcTime || column.type == .localTime ? column.text.replacingOccurrences(of: "local time", with: "local clock time") : column.text
            lines.append("VARIABLE LABELS \(column.name) '\(escape(limited(text, bytes: 250)))'.")
            lines.append("VARIABLE LEVEL \(column.name) (\(column.level.rawValue.uppercased())).")
        }
        lines.append("VALUE LABELS snoozed 0 'no' 1 'yes'.")
        lines.append("EXECUTE.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Converts the ISO 8601 text in `text` (`2027-01-15T09:00:00+01:00`; a fraction of a
    /// second, `Z` and `+0100` too) into the UTC `DATETIME` `name`, and its offset in minutes into
    /// `name_offset` when `offset`; with `clock`, into the clock time as written (not moved to UTC).
    static func time(_ text: String, into name: String, offset: Bool, clock: Bool = false) -> [String] {
        let digits = { (start: String, count: Int) in "NUMBER(SUBSTR(\(text), \(start), \(count)), F\(count).0)" }
        return [
            offset ? "NUMERIC \(name) (DATETIME20) /\(name)_offset (F5.0)." : "NUMERIC \(name) (DATETIME20).",
            "DO IF LENGTH(RTRIM(\(text))) >= 20.",
            "COMPUTE #length = LENGTH(RTRIM(\(text))).",
            "COMPUTE #zone = #length.",
            "DO IF SUBSTR(\(text), #length - 2, 1) = ':'.",
            "COMPUTE #zone = #length - 5.",
            "ELSE IF SUBSTR(\(text), #length, 1) <> 'Z' AND SUBSTR(\(text), #length, 1) <> 'z'.",
            "COMPUTE #zone = #length - 4.",
            "END IF.",
            "COMPUTE #minutes = 0.",
            "IF #zone < #length #minutes = \(digits("#zone + 1", 2)) * 60 + \(digits("#length - 1", 2)).",
            "IF SUBSTR(\(text), #zone, 1) = '-' #minutes = -#minutes.",
            "COMPUTE \(name) = DATE.DMY(\(digits("9", 2)), \(digits("6", 2)), \(digits("1", 4)))",
            "  + TIME.HMS(\(digits("12", 2)), \(digits("15", 2)), \(digits("18", 2)))\(clock ? "" : " - #minutes * 60").",
            "IF SUBSTR(\(text), 20, 1) = '.' \(name) = \(name) + NUMBER(SUBSTR(\(text), 20, #zone - 20), F20.0).",
        ] + (offset ? ["COMPUTE \(name)_offset = #minutes."] : []) + ["END IF."]
    }

    /// A CSV column as the syntax reads it: its SPSS input format, whether it is the same on
    /// every row of a sheet (kept after folding) or belongs to one answer, and whether it is a
    /// time (read as text under `<name>_text`, then converted).
    struct Column {
        enum Time { case local, utc }
        var name: String
        var format: String
        var perSheet: Bool
        var time: Time? = nil
        /// The name `GET DATA` gives it.
        var readName: String { time != nil || name == "late" ? "\(name)_text" : name }
    }

    /// A variable of the folded file (one case per sheet) that is not an item's.
    struct SheetVariable {
        var name: String
        var text: String
        var level: MeasurementLevel
    }

    /// The variables a sheet has once, after folding: the per-sheet columns, each time as its
    /// UTC `DATETIME` and (with the participant's offset) its `_offset`.
    static var sheetVariables: [SheetVariable] {
        columns.filter(\.perSheet).flatMap { column -> [SheetVariable] in
            let described = ExportColumn.long.first { $0.name == column.name }!
            var variable = SheetVariable(name: column.name, text: described.text, level: described.level)
            guard let time = column.time else { return [variable] }
            variable.text += " (UTC)"
            return time == .local
                ? [variable, SheetVariable(name: "\(column.name)_offset", text: "UTC offset of \(column.name) in minutes (local time = \(column.name) + offset)",
                                           level: .scale)]
                : [variable]
        }
    }

    /// The width of a text answer's variable (a free text's longest allowed answer is far shorter).
    static let textWidth = 4000

    /// ``StudyExport/header`` with formats; a test holds the two together.
    static let columns: [Column] = [
        Column(name: "participant", format: "A32", perSheet: true), Column(name: "sheet", format: "A36", perSheet: true),
        Column(name: "questionnaire", format: "A100", perSheet: true), Column(name: "version", format: "F8.0", perSheet: true),
        Column(name: "label", format: "A100", perSheet: false), Column(name: "value", format: "A\(textWidth)", perSheet: false),
        Column(name: "answered_at", format: "A40", perSheet: false), Column(name: "started_at", format: "A40", perSheet: true, time: .local),
        Column(name: "ended_at", format: "A40", perSheet: true, time: .local), Column(name: "received_at", format: "A40", perSheet: true, time: .utc),
        Column(name: "module", format: "A16", perSheet: true), Column(name: "microphone_dbfs", format: "F12.4", perSheet: true),
        Column(name: "microphone_measured_at", format: "A40", perSheet: true, time: .local),
        Column(name: "latitude", format: "F16.8", perSheet: true),
        Column(name: "longitude", format: "F16.8", perSheet: true), Column(name: "altitude_m", format: "F12.3", perSheet: true),
        Column(name: "accuracy_m", format: "F12.3", perSheet: true),
        Column(name: "location_measured_at", format: "A40", perSheet: true, time: .local),
        Column(name: "consent_version", format: "F8.0", perSheet: true), Column(name: "prompt_id", format: "A200", perSheet: true),
        Column(name: "prompted_at", format: "A40", perSheet: true, time: .local), Column(name: "late", format: "A5", perSheet: true),
        Column(name: "initiated_by", format: "A12", perSheet: true), Column(name: "language", format: "A8", perSheet: true),
        Column(name: "site", format: "A32", perSheet: true),
        Column(name: "arm", format: "A32", perSheet: true),
    ]

    /// One questionnaire item as a variable.
    struct Item {
        enum Kind { case number(String), text, date }
        var name: String
        var questionnaire: String
        /// The questionnaire's versions whose answers this variable holds: every version in
        /// which the item has the same label, type and encoding (a change of settings alone, or
        /// of other items, keeps it).
        var versions: [Int]
        var label: String
        var text: String
        var kind: Kind
        var level: MeasurementLevel
        var valueLabels: [(value: String, text: String)]
        /// A multiple choice's options, each a 0/1 variable.
        var options: [(name: String, value: Int, text: String)] = []
    }

    /// The items that take answers, each a variable keyed by its meaning, not by version: one per
    /// questionnaire, label, type and encoding, covering every version that has the item so
    /// (``Item/versions``), named `questionnaire_label` made a valid SPSS name; an item whose type
    /// or encoding changed gets `questionnaire_vN_label` for the version that changed it, and
    /// `itemN` where a name is too long or taken. A multiple choice's options are `<name>_<value>`.
    static func items(_ documents: [QuestionnaireDocument]) -> [Item] {
        var names = Set(columns.map { $0.readName.lowercased() } + sheetVariables.map { $0.name.lowercased() } + ["answers"])
        var items: [Item] = []
        var byMeaning: [String: Int] = [:]
        for document in documents {
            for item in document.definition.items where item.element.isQuestion {
                let meaning = [document.id, item.label, item.element.typeName, Codebook.encoding(item.element)].joined(separator: "\u{0}")
                if let known = byMeaning[meaning] {
                    items[known].versions.append(document.version)
                    continue
                }
                func free(_ name: String) -> Bool { name.utf8.count <= 64 && !names.contains(name.lowercased()) }
                var name = variableName("\(document.id)_\(item.label)")
                if !free(name) { name = variableName("\(document.id)_v\(document.version)_\(item.label)") }
                if !free(name) { name = "item\(items.count + 1)" }
                names.insert(name.lowercased())
                byMeaning[meaning] = items.count
                let column = WideLayout.column(name, item.text?.text(in: "en") ?? item.label, item.element)
                var variable = Item(name: name, questionnaire: document.id, versions: [document.version], label: item.label,
                                    text: column.text, kind: kind(item.element), level: column.level,
                                    valueLabels: [])
                if case .choice(let options) = column.type { variable.valueLabels = options.map { (String($0.value), $0.text) } }
                if case .multipleChoice(let choices, _, _) = item.element {
                    for choice in choices {
                        var option = "\(name)_\(choice.value < 0 ? "m\(-choice.value)" : String(choice.value))"
                        if option.utf8.count > 64 { option = "item\(items.count + 1)_\(variable.options.count + 1)" }
                        while names.contains(option.lowercased()) { option += "_" }
                        names.insert(option.lowercased())
                        variable.options.append((option, choice.value, choice.text.text(in: "en")))
                    }
                }
                items.append(variable)
            }
        }
        return items
    }

    /// How an element's answer is read: a number in a display format, a date, or text.
    static func kind(_ element: QuestionnaireElement) -> Item.Kind {
        switch element {
        case .yesNo, .singleChoice, .scale, .samValence, .samArousal: .number("F8.0")
        case .slider: .number("F16.4")
        case .date: .date
        case .multipleChoice, .freeText, .headline, .text, .unsupported: .text
        }
    }

    /// Letters, digits and `_`, beginning with a letter (SPSS's and PSPP's rule, without the
    /// few special characters, so no name is a reserved word such as `AND` or `TO`: every item's
    /// name joins questionnaire and label with a `_`).
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
