import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server export --study ID --format csv|json|jsonl|fhir-ndjson|spss --out DIR`: a study's
/// answers, participants by pseudonym only, with the module presenting each questionnaire and the
/// sheet's sensor readings, written by ``StudyExports`` as the console's data page writes them.
///
/// Streamed: the store hands over one sheet at a time from one snapshot
/// (``SheetStore/exportSheets(studyId:_:)``) and its rows go straight to a buffered file, so the
/// memory needed does not grow with the study (Scripts/bench/scale measures it). Each file is
/// written under a temporary name and renamed when complete.
/// - `csv`: one row per answer (``StudyExport``), RFC 4180 (``CSV``), and the codebook beside it;
/// - `json`: the same rows as one JSON array, one row object per line;
/// - `jsonl`: the same rows as JSON lines, one object per line;
/// - `fhir-ndjson`: FHIR R4 bulk-data style, one resource per line and one file per type:
///   `ID-Patient.ndjson`, `ID-Questionnaire.ndjson`, `ID-QuestionnaireResponse.ndjson` (``FHIRBulkExport``);
/// - `spss`: the CSV's rows one record per line (``CSV/LineBreaks/escaped``) and the SPSS syntax
///   that reads them (``SPSSSyntax``);
/// - `wide`: one row per sheet, a file per questionnaire (``WideLayout``), and the wide codebook.
///
/// `--with-syntax` writes the R script (``RScript``) and the SPSS syntax beside any format, by the
/// names the console's downloads have (``ExportFileNames``). `--zip` writes the console's
/// "everything" download instead (``StudyArchive``): one ZIP of every file and a README.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export a study's answers.",
        discussion: """
            Files are written readable by you only (0600; a folder made for them 0700).

            CSV: a cell that a spreadsheet would run as a formula, one beginning with =, +, -, @, a tab \
            or a carriage return, gets a leading ' (so =HYPERLINK(...) in a free-text answer stays text), \
            and so does every line inside a cell that begins so. A cell that is a plain number (-3, -42.5) \
            stays as it is. JSON, JSON lines and FHIR keep every value as given.

            SPSS: ID-answers-spss.csv has the CSV's rows, a line break inside a cell written as \\n or \\r \
            (SPSS and PSPP read one record per line), and ID-answers.sps reads it back with the codebook's \
            types and labels.

            Wide: ID-QUESTIONNAIRE-wide.csv, one row per sheet and one column per item, for each \
            questionnaire (only --questionnaire's when given), and ID-wide-codebook.csv, a row per column.

            --prompts: also ID-prompts.csv, the prompt table (a row per prompt of every participant).

            --with-syntax: also ID-answers.R (base R: reads ID-answers.csv, ID-prompts.csv and the wide files in its folder) \
            and ID-answers.sps (reads ID-answers-spss.csv); with --prompts also ID-prompts.sps (reads ID-prompts.csv).

            --zip: instead, ID-export.zip, as the console's data page downloads it: every file above \
            (the long, SPSS, wide and prompt files, both codebooks, the R script, the SPSS syntax) in a \
            folder ID-export with a README.txt naming each. It takes the whole study, so no --format, \
            --questionnaire, --from, --to, --prompts or --with-syntax.
            """)

    typealias Format = ExportFormat

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Option(help: "csv (the default), json, jsonl (JSON lines), fhir-ndjson (FHIR R4 resources, one per line), spss (data and syntax) or wide (a file per questionnaire, one row per sheet).")
    var format: Format?
    @Flag(help: "Also write the R script and the SPSS syntax that read the files.") var withSyntax = false
    @Option(help: "Directory to write into (created if needed, readable by you only).") var out: String
    @Flag(help: "Also write the prompt table: one row per prompt of every participant, with its outcome (<study>-prompts.csv; see Documentation/adherence.md).")
    var prompts = false
    @Option(help: "Only this questionnaire's sheets.") var questionnaire: String?
    @Option(help: "Only sheets started on or after this UTC day, YYYY-MM-DD.") var from: String?
    @Option(help: "Only sheets started on or before this UTC day, YYYY-MM-DD.") var to: String?
    @Option(help: "Only the participants of this site (see 'sites list'); the prompt table and the ZIP too.") var site: String?
    @Flag(help: "Arms by their codes (A, B, …), as the trial's analysts blind to allocation get them.") var blinded = false
    @Flag(help: "Write everything of the study as one ZIP instead (<study>-export.zip: data, codebooks, prompts, R and SPSS syntax, a README).")
    var zip = false

    func validate() throws {
        let chosen = [(format != nil, "--format"), (questionnaire != nil, "--questionnaire"), (from != nil, "--from"), (to != nil, "--to"),
                      (prompts, "--prompts"), (withSyntax, "--with-syntax")].filter(\.0).map(\.1)
        if zip, !chosen.isEmpty {
            throw ValidationError("--zip writes every file of the whole study; leave out \(chosen.joined(separator: ", ")).")
        }
    }

    /// The filters as the console's data page takes them (``ExportFilter``).
    func exportFilter() throws -> ExportFilter {
        func day(_ text: String?, _ option: String) throws -> Date? {
            guard let text else { return nil }
            guard let date = Timestamps.parse(text + "T00:00:00Z") else { throw ValidationError("--\(option) \(text) is not a day; give YYYY-MM-DD.") }
            return date
        }
        return ExportFilter(questionnaire: questionnaire, from: try day(from, "from"), to: try day(to, "to")?.addingTimeInterval(86_400),
                            site: site)
    }

    func run() async throws {
        let filter = try exportFilter()
        let store = try await database.openStore()
        do {
            try await export(store, filter: filter)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    private func export(_ store: ServerStore, filter: ExportFilter) async throws {
        let exports = StudyExports(administration: StudyAdministration(store: store, actor: .operator, now: Date()))
        let directory = URL(fileURLWithPath: out)
        if zip {
            let written = try await exports.archive(of: study, site: site, blinded: blinded, into: directory)
            print("Wrote \(written.rows) answer rows and every file beside them to \(written.files[0].path).")
            return
        }
        let format = format ?? .csv
        var filter = filter
        if blinded { filter.armCodes = try await exports.blindCodes(of: study, blinded: true) }
        let written = try await exports.answers(of: study, format: format, filter: filter, into: directory)
        switch format {
        case .csv, .json, .jsonl:
            print("Wrote \(written.rows) rows to \(written.files[0].path).")
        case .fhirNDJSON:
            print("Wrote \(written.patients) Patient, \(written.questionnaires) Questionnaire and \(written.rows) QuestionnaireResponse resources to \(directory.path).")
        case .spss:
            print("Wrote \(written.rows) rows to \(written.files[0].path).")
        case .wide:
            print("Wrote \(written.rows) sheets to \(written.files.map(\.lastPathComponent).joined(separator: ", ")) in \(directory.path).")
        }
        var beside: [(what: String, name: String, text: () async throws -> String)] = []
        switch format {
        case .csv: beside.append(("the codebook", ExportFileNames.codebook(study: study), { try await exports.codebook(of: study) }))
        case .wide: beside.append(("the wide codebook", ExportFileNames.wideCodebook(study: study), { try await exports.wideCodebook(of: study) }))
        case .spss, .json, .jsonl, .fhirNDJSON: break
        }
        if format == .spss || withSyntax {
            beside.append(("the SPSS syntax", ExportFileNames.spssSyntax(study: study), { try await exports.spssSyntax(of: study) }))
        }
        if withSyntax {
            beside.append(("the R script", ExportFileNames.rScript(study: study), { try await exports.rScript(of: study) }))
        }
        for (what, name, text) in beside {
            let file = try ExportFile(directory.appendingPathComponent(name))
            do { try file.write(try await text()); try file.finish() } catch { file.abandon(); throw error }
            print("Wrote \(what) to \(file.destination.path).")
        }
        if prompts {
            let file = try ExportFile(directory.appendingPathComponent(ExportFileNames.prompts(study: study)))
            let rows = try await exports.prompts(of: study, site: site, into: file)
            print("Wrote \(rows) prompts to \(file.destination.path).")
            if withSyntax {
                let syntax = try ExportFile(directory.appendingPathComponent(ExportFileNames.promptsSyntax(study: study)))
                do { try syntax.write(try await exports.promptsSyntax(of: study)); try syntax.finish() } catch { syntax.abandon(); throw error }
                print("Wrote the prompt table's SPSS syntax to \(syntax.destination.path).")
            }
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
