/// The formats a study's answers are exported in, by the console's data page and
/// `uniti-server export --format` alike (``StudyExports``).
enum ExportFormat: String, CaseIterable, Sendable {
    /// One row per answer, RFC 4180 (``CSV``).
    case csv
    /// The same rows as one JSON array, one row object per line.
    case json
    /// The same rows as JSON lines.
    case jsonl
    /// FHIR R4 bulk-data style: Patient, Questionnaire and QuestionnaireResponse resources.
    case fhirNDJSON = "fhir-ndjson"
    /// The CSV's rows for SPSS and GNU PSPP, each record on one line (``CSV/LineBreaks/escaped``),
    /// beside the syntax that reads it (``SPSSSyntax``).
    case spss
    /// One row per sheet, a file per questionnaire (``WideLayout``), with the wide codebook.
    case wide

    /// The files an export of `study` in this format writes, by the names the command line
    /// writes into its folder (the console sends them as one download); `questionnaires` are
    /// the ids a wide export has a file for.
    func fileNames(study: String, questionnaires: [String] = []) -> [String] {
        switch self {
        case .csv, .json, .jsonl: ["\(study)-answers.\(rawValue)"]
        case .fhirNDJSON: FHIRBulkExport.resourceTypes.map { "\(study)-\($0).ndjson" }
        case .spss: [ExportFileNames.spssData(study: study)]
        case .wide: questionnaires.map { ExportFileNames.wide(study: study, questionnaire: $0) }
        }
    }

    /// The media type of the console's download.
    var mediaType: String {
        switch self {
        case .csv, .spss, .wide: "text/csv; charset=utf-8"
        case .json: "application/json"
        case .jsonl: "application/x-ndjson"
        case .fhirNDJSON: "application/fhir+ndjson"
        }
    }
}
