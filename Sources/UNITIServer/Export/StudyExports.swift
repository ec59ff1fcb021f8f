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

    /// The study and, when `site` names one, that it is the study's (422 `unknown_site`).
    func existingStudy(_ studyId: String, site: String?) async throws -> StudyRecord {
        let study = try await existingStudy(studyId)
        if let site { _ = try await StudySites(administration: administration).site(site, studyId: study.id) }
        return study
    }

    /// The arms' codes of a randomised study when the export is `blinded` (the command line's
    /// `--blinded`) or the one exporting is a team member blind to allocation (nil: arms by
    /// their ids, or no trial).
    func blindCodes(of studyId: String, blinded: Bool = false) async throws -> [String: String]? {
        var blind = blinded
        if !blind, case .staff(let staffId) = administration.actor { blind = try await store.isBlinded(staffId: staffId, studyId: studyId) }
        guard blind, let trial = try await store.trial(studyId: studyId) else { return nil }
        return ArmNames(trial: trial, blinded: true).codes
    }

    /// Each participant's site by pseudonym (those of no site are absent): the site column of the
    /// prompt table and the adherence report, whose lines name the pseudonym.
    func sitesByPseudonym(of studyId: String) async throws -> [String: String] {
        Dictionary(try await store.studyParticipants(studyId: studyId).compactMap { person in person.site.map { (person.pseudonym, $0) } },
                   uniquingKeysWith: { first, _ in first })
    }

    /// Writes the answers of the sheets `filter` admits into `directory`, streamed (the memory of
    /// one row), each file under a temporary name and put in place only when every file of the
    /// export is complete; then the audit line. A wide export writes a file per questionnaire
    /// (only `filter`'s when it names one) and counts sheets, not answers.
    func answers(of studyId: String, format: ExportFormat, filter: ExportFilter, into directory: URL) async throws -> Written {
        _ = try await existingStudy(studyId, site: filter.site)
        var filter = filter
        if filter.armCodes == nil { filter.armCodes = try await blindCodes(of: studyId) }
        try PrivateFiles.createFolder(directory.path)
        let layouts = format == .wide ? try await wideLayouts(of: studyId).filter { layout in
            filter.questionnaire.map { $0 == layout.questionnaire } ?? true
        } : []
        let files = try format.fileNames(study: studyId, questionnaires: layouts.map(\.questionnaire))
            .map { try ExportFile(directory.appendingPathComponent($0)) }
        var written: Written
        do {
            switch format {
            case .csv, .json, .jsonl, .spss:
                written = Written(files: [], rows: try await StudyExport.rows(of: studyId, from: store, format: format, to: files[0], filter: filter))
            case .wide:
                let sinks = StudyExport.Sinks(wide: Dictionary(uniqueKeysWithValues: zip(layouts, files).map { ($0.questionnaire, ($0, $1)) }))
                written = Written(files: [], rows: try await StudyExport.write(of: studyId, from: store, to: sinks, filter: filter).sheets)
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

    /// The wide file of each of the study's questionnaires (``WideLayout``).
    func wideLayouts(of studyId: String) async throws -> [WideLayout] {
        WideLayout.layouts(study: studyId, try await store.questionnaires(studyId: studyId))
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

    /// The SPSS syntax that reads the prompt table (``SPSSSyntax/promptTable(data:)``); its rows
    /// are the table's columns.
    func promptsSyntax(of studyId: String) async throws -> String {
        _ = try await existingStudy(studyId)
        try await administration.recordExport(studyId: studyId, format: "prompts-spss-syntax", filters: [:], rows: PromptTable.columns.count)
        return SPSSSyntax.promptTable(data: ExportFileNames.prompts(study: studyId))
    }

    /// The codebook of the wide files (``Codebook/wideCSV(_:)``): a row per column.
    func wideCodebook(of studyId: String) async throws -> String {
        _ = try await existingStudy(studyId)
        let layouts = try await wideLayouts(of: studyId)
        try await administration.recordExport(studyId: studyId, format: "wide-codebook", filters: [:],
                                              rows: layouts.reduce(0) { $0 + $1.columns.count })
        return Codebook.wideCSV(layouts)
    }

    /// The R script that reads the answers and the wide files as downloaded (``RScript``); its
    /// rows are the columns it describes.
    func rScript(of studyId: String) async throws -> String {
        _ = try await existingStudy(studyId)
        let layouts = try await wideLayouts(of: studyId)
        try await administration.recordExport(studyId: studyId, format: "r-syntax", filters: [:],
                                              rows: ExportColumn.long.count + layouts.reduce(0) { $0 + $1.columns.count })
        return RScript.script(study: studyId, layouts: layouts)
    }

    /// Everything of the study in one ZIP in `directory` (``StudyArchive``): the answers (CSV and
    /// SPSS data) and the wide files from one pass over one snapshot, so they hold the same
    /// sheets, the prompt table, the codebooks, the SPSS syntax, the R script and a README naming
    /// each file. One audit line (`zip`, the answers' rows). With `site`, that site's
    /// participants only.
    func archive(of studyId: String, site: String? = nil, blinded: Bool = false, into directory: URL) async throws -> Written {
        _ = try await existingStudy(studyId, site: site)
        let documents = try await store.questionnaires(studyId: studyId)
        let layouts = WideLayout.layouts(study: studyId, documents)
        try PrivateFiles.createFolder(directory.path)
        // The files are gathered in a hidden folder of their own, so a `<study>-export` folder
        // already in `directory` (an earlier ZIP, unpacked there) is neither used nor removed.
        let staging = directory.appendingPathComponent(".\(StudyArchive.folder(study: studyId))-\(UUID().uuidString)")
        try PrivateFiles.createFolder(staging.path)
        defer { try? FileManager.default.removeItem(at: staging) }
        let folder = staging.appendingPathComponent(StudyArchive.folder(study: studyId))
        try PrivateFiles.createFolder(folder.path)
        let answers = try ExportFile(folder.appendingPathComponent(ExportFileNames.answers(study: studyId)))
        let spss = try ExportFile(folder.appendingPathComponent(ExportFileNames.spssData(study: studyId)))
        let wide = try layouts.map { try ExportFile(folder.appendingPathComponent($0.file)) }
        let dataFiles = [answers, spss] + wide
        let counts: (rows: Int, sheets: Int)
        do {
            let sinks = StudyExport.Sinks(rows: [(.csv, answers), (.spss, spss)],
                                          wide: Dictionary(uniqueKeysWithValues: zip(layouts, wide).map { ($0.questionnaire, ($0, $1)) }))
            counts = try await StudyExport.write(of: studyId, from: store, to: sinks,
                                                 filter: ExportFilter(site: site, armCodes: try await blindCodes(of: studyId, blinded: blinded)))
            for file in dataFiles { try file.finish() }
        } catch {
            for file in dataFiles { file.abandon() }
            throw error
        }
        _ = try await writePrompts(of: studyId, site: site,
                                   into: try ExportFile(folder.appendingPathComponent(ExportFileNames.prompts(study: studyId))))
        let texts: [(String, String)] = [
            (ExportFileNames.codebook(study: studyId), Codebook.csv(documents)),
            (ExportFileNames.wideCodebook(study: studyId), Codebook.wideCSV(layouts)),
            (ExportFileNames.spssSyntax(study: studyId), SPSSSyntax.syntax(data: ExportFileNames.spssData(study: studyId), documents)),
            (ExportFileNames.rScript(study: studyId), RScript.script(study: studyId, layouts: layouts)),
            (ExportFileNames.promptsSyntax(study: studyId), SPSSSyntax.promptTable(data: ExportFileNames.prompts(study: studyId))),
            (ExportFileNames.readme, StudyArchive.readme(study: studyId, layouts: layouts, rows: counts.rows, sheets: counts.sheets,
                                                         at: administration.now)),
        ]
        for (name, text) in texts {
            let file = try ExportFile(folder.appendingPathComponent(name))
            do { try file.write(text); try file.finish() } catch { file.abandon(); throw error }
        }
        let zip = directory.appendingPathComponent(ExportFileNames.archive(study: studyId))
        try StudyArchive.zip(StudyArchive.files(study: studyId, layouts: layouts), in: folder, to: zip)
        try await administration.recordExport(studyId: studyId, format: "zip", filters: ExportFilter(site: site).described, rows: counts.rows)
        return Written(files: [zip], rows: counts.rows)
    }

    /// The adherence report's lines for prompts due in `[from, to)`, handed to `body` one at a
    /// time, flagged by `flags`; then the audit line (`adherence-<form>`, with the report's
    /// days and flags). With `site`, that site's participants only. Returns the lines written.
    @discardableResult
    func adherence(of studyId: String, from: Date?, to: Date?, site: String? = nil, flags: AdherenceReport.Flags, form: String,
                   _ body: @escaping @Sendable (AdherenceReport.Line) throws -> Void) async throws -> Int {
        _ = try await existingStudy(studyId, site: site)
        let sites = try await sitesByPseudonym(of: studyId)
        let count = Mutex(0)
        try await AdherenceReport.lines(of: studyId, in: store, from: from, to: to, flags: flags, now: administration.now) { line in
            var line = line
            line.site = sites[line.participant]
            guard site == nil || line.site == site else { return }
            try body(line)
            count.withLock { $0 += 1 }
        }
        var filters = ExportFilter(from: from, to: to, site: site).described
        if let below = flags.below { filters["below"] = String(below) }
        if let silent = flags.silentFor { filters["silentDays"] = String(Int(silent / 86_400)) }
        let rows = count.withLock { $0 }
        try await administration.recordExport(studyId: studyId, format: "adherence-\(form)", filters: filters, rows: rows)
        return rows
    }

    /// The prompt table (``PromptTable``) written to `file` (`<study>-prompts.csv`): its header,
    /// then a line per prompt, streamed; the audit line says `prompts-csv` and the rows. With
    /// `site`, that site's participants only.
    @discardableResult
    func prompts(of studyId: String, site: String? = nil, into file: ExportFile) async throws -> Int {
        _ = try await existingStudy(studyId, site: site)
        let rows = try await writePrompts(of: studyId, site: site, into: file)
        try await administration.recordExport(studyId: studyId, format: "prompts-csv", filters: ExportFilter(site: site).described, rows: rows)
        return rows
    }

    /// The prompt table into `file`, put in place (or abandoned on a failure); no audit line.
    private func writePrompts(of studyId: String, site: String?, into file: ExportFile) async throws -> Int {
        do {
            let sites = try await sitesByPseudonym(of: studyId)
            let written = Mutex(0)
            try file.write(CSV.line(PromptTable.header))
            try await PromptTable.rows(of: studyId, in: store) { row in
                var row = row
                row.site = sites[row.participant] ?? ""
                guard site == nil || row.site == site else { return }
                try file.write(CSV.line(row.cells))
                written.withLock { $0 += 1 }
            }
            try file.finish()
            return written.withLock { $0 }
        } catch {
            file.abandon()
            throw error
        }
    }
}
