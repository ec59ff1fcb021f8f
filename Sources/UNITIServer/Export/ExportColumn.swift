import UNITIProtocol

/// One column of an export's data file as the codebooks, the R script and the SPSS syntax
/// describe it: its name, what it holds (its label), how its cells are written and how an
/// analysis should treat it. The long file's columns are ``long``; a wide file's are
/// ``WideLayout/columns``.
struct ExportColumn: Sendable, Hashable {
    var name: String
    /// What the column holds, in English: the variable label in R and SPSS.
    var text: String
    var type: ColumnType
    var level: MeasurementLevel
    /// Whether the column is the same on every row of a sheet (in the long file).
    var perSheet = true
}

/// How a column's cells are written in the CSV.
enum ColumnType: Sendable, Hashable {
    /// Text as given (free text, ids, a multiple choice's chosen values `2,3`).
    case text
    /// A whole number.
    case integer
    /// A number, decimal point `.`.
    case number
    /// `true` or `false`.
    case boolean
    /// ISO 8601 with the participant's UTC offset (`2027-01-15T09:00:00+01:00`; a fraction of a
    /// second, `Z` and `+0100` occur too): read as a UTC time plus the offset in minutes.
    case localTime
    /// ISO 8601 in UTC (`2027-01-15T08:00:03Z`), the server's clock.
    case utcTime
    /// `YYYY-MM-DD`.
    case date
    /// One option's value (yes/no, single choice): a factor with each value's text.
    case choice([ChoiceLabel])
    /// One option of a multiple choice: `1` chosen, `0` not chosen, empty when unanswered.
    case chosen

    /// The codebook's word for it.
    var name: String {
        switch self {
        case .text: "text"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .localTime: "time with UTC offset"
        case .utcTime: "time in UTC"
        case .date: "date"
        case .choice: "choice"
        case .chosen: "chosen (0/1)"
        }
    }

    /// How its cells are written, for the codebook.
    var values: String {
        switch self {
        case .text: "text"
        case .integer: "whole number"
        case .number: "number"
        case .boolean: "true; false"
        case .localTime: "ISO 8601 with the participant's UTC offset, e.g. 2027-01-15T09:00:00+01:00"
        case .utcTime: "ISO 8601 in UTC, e.g. 2027-01-15T08:00:03Z"
        case .date: "YYYY-MM-DD"
        case .choice(let options): options.map { "\($0.value) = \($0.text)" }.joined(separator: "; ")
        case .chosen: "1 = chosen; 0 = not chosen; empty = not answered"
        }
    }
}

/// A value of a choice and its text (English).
struct ChoiceLabel: Sendable, Hashable {
    var value: Int
    var text: String
}

/// How an analysis treats a variable: SPSS's `VARIABLE LEVEL`, the codebooks' `level`.
enum MeasurementLevel: String, Sendable, Hashable {
    /// Categories without order: yes/no, a single choice, a chosen option, ids and text.
    case nominal
    /// Ordered categories: a rating scale, the SAM pictograms.
    case ordinal
    /// Numbers on an interval scale: a slider, readings, times.
    case scale
}

extension ExportColumn {
    /// The long file's columns (``StudyExport/header``; a test holds the two together).
    static let long: [ExportColumn] = [
        ExportColumn(name: "participant", text: "Participant's study pseudonym", type: .text, level: .nominal),
        ExportColumn(name: "sheet", text: "Sheet id (one filled-in questionnaire)", type: .text, level: .nominal),
        ExportColumn(name: "questionnaire", text: "Questionnaire id", type: .text, level: .nominal),
        ExportColumn(name: "version", text: "Questionnaire version answered", type: .integer, level: .nominal),
        ExportColumn(name: "label", text: "Item label (see the codebook)", type: .text, level: .nominal, perSheet: false),
        ExportColumn(name: "value", text: "Answer as written (number, chosen values joined by commas, or text)", type: .text,
                     level: .nominal, perSheet: false),
        ExportColumn(name: "answered_at", text: "Time the item was answered", type: .localTime, level: .scale, perSheet: false),
        ExportColumn(name: "started_at", text: "Time the sheet was started", type: .localTime, level: .scale),
        ExportColumn(name: "ended_at", text: "Time the sheet was saved", type: .localTime, level: .scale),
        ExportColumn(name: "received_at", text: "Time the server received the sheet", type: .utcTime, level: .scale),
        ExportColumn(name: "module", text: "Module presenting the questionnaire", type: .text, level: .nominal),
        ExportColumn(name: "microphone_dbfs", text: "Microphone level while answering (dBFS)", type: .number, level: .scale),
        ExportColumn(name: "microphone_measured_at", text: "Time of the microphone reading", type: .localTime, level: .scale),
        ExportColumn(name: "latitude", text: "Latitude (WGS 84 degrees)", type: .number, level: .scale),
        ExportColumn(name: "longitude", text: "Longitude (WGS 84 degrees)", type: .number, level: .scale),
        ExportColumn(name: "altitude_m", text: "Altitude (metres)", type: .number, level: .scale),
        ExportColumn(name: "accuracy_m", text: "Accuracy radius of the location (metres)", type: .number, level: .scale),
        ExportColumn(name: "location_measured_at", text: "Time of the location fix", type: .localTime, level: .scale),
        ExportColumn(name: "consent_version", text: "Newest consent version the participant agreed to", type: .integer, level: .ordinal),
        ExportColumn(name: "prompt_id", text: "Prompt the sheet answers (empty: answered without a prompt)", type: .text, level: .nominal),
        ExportColumn(name: "prompted_at", text: "Time the prompt was delivered", type: .localTime, level: .scale),
        ExportColumn(name: "late", text: "Begun after the prompt's completion window, inside its late allowance", type: .boolean, level: .nominal),
        ExportColumn(name: "initiated_by", text: "Who began the sheet: prompt or participant (empty: not recorded)", type: .text, level: .nominal),
        ExportColumn(name: "language", text: "Language the sheet was answered in (en, de, es, el, nl; empty: not recorded)",
                     type: .text, level: .nominal),
        ExportColumn(name: "site", text: "The participant's site (empty: none)", type: .text, level: .nominal),
        ExportColumn(name: "arm", text: "The participant's arm, or its code in an export blind to allocation (empty: not randomised)",
                     type: .text, level: .nominal),
    ]
}
