import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server export --study ID --format csv|json|jsonl|fhir-ndjson --out DIR`: a study's
/// answers, participants by pseudonym only, with the module presenting each questionnaire and the
/// sheet's sensor readings.
///
/// Streamed: the store hands over one sheet at a time from one snapshot
/// (``SheetStore/exportSheets(studyId:_:)``) and its rows go straight to a buffered file, so the
/// memory needed does not grow with the study (Scripts/bench/scale measures it). Each file is
/// written under a temporary name and renamed when complete.
/// - `csv`: one row per answer (``StudyExport``), RFC 4180, formula-like cells neutralised
///   (``StudyExport/neutralised(_:)``);
/// - `json`: the same rows as one JSON array, one row object per line;
/// - `jsonl`: the same rows as JSON lines, one object per line;
/// - `fhir-ndjson`: FHIR R4 bulk-data style, one resource per line and one file per type:
///   `ID-Patient.ndjson`, `ID-Questionnaire.ndjson`, `ID-QuestionnaireResponse.ndjson` (``FHIRBulkExport``).
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export a study's answers.",
        discussion: """
            Files are written readable by you only (0600; a folder made for them 0700).

            CSV: a cell that a spreadsheet would run as a formula, one beginning with =, +, -, @, a tab \
            or a carriage return, gets a leading ' (so =HYPERLINK(...) in a free-text answer stays text). \
            A cell that is a plain number (-3, -42.5) stays as it is. JSON, JSON lines and FHIR keep every \
            value as given.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json, jsonl
        case fhirNDJSON = "fhir-ndjson"
    }

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Option(help: "csv, json, jsonl (JSON lines) or fhir-ndjson (FHIR R4 resources, one per line).") var format: Format = .csv
    @Option(help: "Directory to write into (created if needed, readable by you only).") var out: String
    @Option(help: "Only this questionnaire's sheets (csv, json, jsonl).") var questionnaire: String?
    @Option(help: "Only sheets started on or after this UTC day, YYYY-MM-DD (csv, json, jsonl).") var from: String?
    @Option(help: "Only sheets started on or before this UTC day, YYYY-MM-DD (csv, json, jsonl).") var to: String?

    /// The filters as the console's data page takes them (``ExportFilter``).
    func exportFilter() throws -> ExportFilter {
        func day(_ text: String?, _ option: String) throws -> Date? {
            guard let text else { return nil }
            guard let date = Timestamps.parse(text + "T00:00:00Z") else { throw ValidationError("--\(option) \(text) is not a day; give YYYY-MM-DD.") }
            return date
        }
        return ExportFilter(questionnaire: questionnaire, from: try day(from, "from"), to: try day(to, "to")?.addingTimeInterval(86_400))
    }

    func run() async throws {
        let store = try await database.openStore()
        do {
            try await export(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    private func export(_ store: ServerStore) async throws {
        guard try await store.study(id: study) != nil else { throw ValidationError("No study '\(study)'; see 'study list'.") }
        let directory = URL(fileURLWithPath: out)
        try PrivateFiles.createFolder(directory.path)
        switch format {
        case .csv, .json, .jsonl:
            let file = try ExportFile(directory.appendingPathComponent("\(study)-answers.\(format.rawValue)"))
            let filter = try exportFilter()
            let count = try await writing([file]) { try await StudyExport.rows(of: study, from: store, format: format, to: file, filter: filter) }
            try await StudyAdministration(store: store, actor: .operator, now: Date())
                .recordExport(studyId: study, format: format.rawValue, filters: filter.described, rows: count)
            print("Wrote \(count) rows to \(file.destination.path).")
            if format == .csv {
                let codebook = try ExportFile(directory.appendingPathComponent("\(study)-codebook.csv"))
                try await writing([codebook]) { try codebook.write(Codebook.csv(try await store.questionnaires(studyId: study))) }
                print("Wrote the codebook to \(codebook.destination.path).")
            }
        case .fhirNDJSON:
            let files = try ["Patient", "Questionnaire", "QuestionnaireResponse"].map {
                try ExportFile(directory.appendingPathComponent("\(study)-\($0).ndjson"))
            }
            let count = try await writing(files) {
                try await StudyExport.fhir(of: study, from: store, patients: files[0], questionnaires: files[1], responses: files[2])
            }
            try await StudyAdministration(store: store, actor: .operator, now: Date())
                .recordExport(studyId: study, format: format.rawValue, filters: [:], rows: count.responses)
            print("Wrote \(count.patients) Patient, \(count.questionnaires) Questionnaire and \(count.responses) QuestionnaireResponse resources to \(directory.path).")
        }
    }

    /// Runs `body`, then puts every file in place; on failure none is.
    private func writing<Result>(_ files: [ExportFile], _ body: () async throws -> Result) async throws -> Result {
        do {
            let result = try await body()
            for file in files { try file.finish() }
            return result
        } catch {
            for file in files { file.abandon() }
            throw error
        }
    }
}
