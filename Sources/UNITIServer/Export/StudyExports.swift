import Foundation
import Synchronization

/// A study's exports, one place for the console's data page and `uniti-server export` and
/// `adherence`: which files each format writes and by what names, which filters apply, how the
/// adherence report is flagged, and the line in the audit trail each export leaves (its format,
/// filters and rows). The doors only parse their input and hand the result on (the console as a
/// download, the command as files or lines).
struct StudyExports: Sendable {
    let administration: StudyAdministration
    var store: ServerStore { administration.store }

    /// What an export of the answers wrote.
    struct Written: Sendable {
        /// The files, in place and complete, named by ``ExportFormat/fileNames(study:)``.
        var files: [URL]
        /// Rows written (FHIR: QuestionnaireResponses).
        var rows: Int
        /// For FHIR: the Patients and Questionnaires written beside the responses.
        var patients = 0
        var questionnaires = 0
    }

    /// The study, or 404 naming it (``StudyAdministration/existingStudy(_:)``).
    func existingStudy(_ studyId: String) async throws -> StudyRecord {
        try await administration.existingStudy(studyId)
    }

    /// Writes the answers of the sheets `filter` admits into `directory`, streamed (the memory of
    /// one row), each file under a temporary name and put in place only when every file of the
    /// export is complete; then the audit line.
    func answers(of studyId: String, format: ExportFormat, filter: ExportFilter, into directory: URL) async throws -> Written {
        _ = try await existingStudy(studyId)
        try PrivateFiles.createFolder(directory.path)
        let files = try format.fileNames(study: studyId).map { try ExportFile(directory.appendingPathComponent($0)) }
        var written: Written
        do {
            switch format {
            case .csv, .json, .jsonl, .spss:
                written = Written(files: [], rows: try await StudyExport.rows(of: studyId, from: store, format: format, to: files[0], filter: filter))
            case .fhirNDJSON:
                let counts = try await StudyExport.fhir(of: studyId, from: store, patients: files[0], questionnaires: files[1],
                                                        responses: files[2], filter: filter)
                written = Written(files: [], rows: counts.responses, patients: counts.patients, questionnaires: counts.questionnaires)
            }
            for file in files { try file.finish() }
        } catch {
            for file in files { file.abandon() }
            throw error
        }
        written.files = files.map(\.destination)
        try await administration.recordExport(studyId: studyId, format: format.rawValue, filters: filter.described, rows: written.rows)
        return written
    }

    /// The codebook of every questionnaire version of the study (``Codebook``); its rows are the
    /// items it describes, though it holds no participant's data.
    func codebook(of studyId: String) async throws -> String {
        _ = try await existingStudy(studyId)
        let documents = try await store.questionnaires(studyId: studyId)
        try await administration.recordExport(studyId: studyId, format: "codebook", filters: [:],
                                              rows: documents.reduce(0) { $0 + $1.definition.items.count { $0.element.isQuestion } })
        return Codebook.csv(documents)
    }

    /// The SPSS syntax that reads the study's SPSS data (``SPSSSyntax``); its rows are the items
    /// it makes variables of.
    func spssSyntax(of studyId: String) async throws -> String {
        _ = try await existingStudy(studyId)
        let documents = try await store.questionnaires(studyId: studyId)
        try await administration.recordExport(studyId: studyId, format: "spss-syntax", filters: [:], rows: SPSSSyntax.items(documents).count)
        return SPSSSyntax.syntax(data: SPSSSyntax.dataFileName(study: studyId), documents)
    }

    /// The adherence report's lines for prompts due in `[from, to)`, handed to `body` one at a
    /// time, flagged by `flags`; then the audit line (`adherence-<form>`, with the report's
    /// days and flags). Returns the lines written.
    @discardableResult
    func adherence(of studyId: String, from: Date?, to: Date?, flags: AdherenceReport.Flags, form: String,
                   _ body: @escaping @Sendable (AdherenceReport.Line) throws -> Void) async throws -> Int {
        _ = try await existingStudy(studyId)
        let count = Mutex(0)
        try await AdherenceReport.lines(of: studyId, in: store, from: from, to: to, flags: flags, now: administration.now) { line in
            try body(line)
            count.withLock { $0 += 1 }
        }
        var filters = ExportFilter(from: from, to: to).described
        if let below = flags.below { filters["below"] = String(below) }
        if let silent = flags.silentFor { filters["silentDays"] = String(Int(silent / 86_400)) }
        let rows = count.withLock { $0 }
        try await administration.recordExport(studyId: studyId, format: "adherence-\(form)", filters: filters, rows: rows)
        return rows
    }

    /// The prompt table (``PromptTable``) written to `file` (`<study>-prompts.csv`): its header,
    /// then a line per prompt, streamed; the audit line says `prompts-csv` and the rows.
    @discardableResult
    func prompts(of studyId: String, into file: ExportFile) async throws -> Int {
        _ = try await existingStudy(studyId)
        let rows: Int
        do {
            try file.write(CSV.line(PromptTable.header))
            rows = try await PromptTable.rows(of: studyId, in: store) { try file.write(CSV.line($0.cells)) }
            try file.finish()
        } catch {
            file.abandon()
            throw error
        }
        try await administration.recordExport(studyId: studyId, format: "prompts-csv", filters: [:], rows: rows)
        return rows
    }

    /// The prompt table as one text (the console's download): a study's prompts at a few hundred
    /// bytes each.
    func prompts(of studyId: String) async throws -> String {
        _ = try await existingStudy(studyId)
        let lines = Mutex([CSV.line(PromptTable.header)])
        let rows = try await PromptTable.rows(of: studyId, in: store) { row in lines.withLock { $0.append(CSV.line(row.cells)) } }
        try await administration.recordExport(studyId: studyId, format: "prompts-csv", filters: [:], rows: rows)
        return lines.withLock { $0.joined() }
    }
}
