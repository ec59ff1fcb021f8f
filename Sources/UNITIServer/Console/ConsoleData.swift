import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText
import Synchronization

/// Data: the answers' exports (long, and wide per questionnaire), the codebooks, the R script, the
/// SPSS syntax, all of them as one ZIP, and the adherence report (``StudyExports``).
extension ConsolePage {
    static let data = study("data", "studies/:study/data", .viewer, tab: "data", site: true) { try await $0.data($2) }
    static let export = study("export", "studies/:study/data/export", .statistician, site: true) { try await $0.export($1, $2) }
    static let codebook = study("codebook", "studies/:study/data/codebook.csv", .statistician, site: true) { try await $0.codebook($2) }
    static let spssSyntax = study("spssSyntax", "studies/:study/data/answers.sps", .statistician, site: true) { try await $0.spssSyntax($2) }
    static let wideCodebook = study("wideCodebook", "studies/:study/data/wide-codebook.csv", .statistician, site: true) { try await $0.wideCodebook($2) }
    static let rScript = study("rScript", "studies/:study/data/answers.R", .statistician, site: true) { try await $0.rScript($2) }
    static let archive = study("archive", "studies/:study/data/export.zip", .statistician, site: true) { try await $0.archive($1, $2) }
    static let adherenceReport = study("adherenceReport", "studies/:study/data/adherence.csv", .statistician, site: true) {
        try await $0.adherenceReport($1, $2)
    }

    /// This feature's pages, in the order of its tabs (``all``).
    static let promptTable = study("promptTable", "studies/:study/data/prompts.csv", .statistician, site: true) { try await $0.promptTable($1, $2) }
    static let promptsSyntax = study("promptsSyntax", "studies/:study/data/prompts.sps", .statistician, site: true) { try await $0.promptsSyntax($2) }
    static let dataPages: [ConsolePage] = [data, export, codebook, spssSyntax, wideCodebook, rScript, archive, adherenceReport, promptTable,
                                           promptsSyntax]
}

extension ConsoleRoutes {

    func data(_ context: StudyContext) async throws -> Response {
        let current = context.study
        let studyId = current.study.id
        let ids = try await store.latestQuestionnaires(studyId: studyId).map(\.id)
        var sites: [ConsoleSite] = []
        if current.site == nil { sites = try await siteChoices(studyId) }
        return try await page(ConsoleDataPage(
            questionnaires: ids, canExport: ConsolePage.export.allows(current),
            wideFiles: ids.map { ConsoleDataPage.WideFile(questionnaire: $0, file: ExportFileNames.wide(study: studyId, questionnaire: $0)) },
            files: ConsoleDataPage.Files(
                answers: ExportFileNames.answers(study: studyId), codebook: ExportFileNames.codebook(study: studyId),
                wideCodebook: ExportFileNames.wideCodebook(study: studyId), rScript: ExportFileNames.rScript(study: studyId),
                spssData: ExportFileNames.spssData(study: studyId), spssSyntax: ExportFileNames.spssSyntax(study: studyId),
                archive: ExportFileNames.archive(study: studyId), prompts: ExportFileNames.prompts(study: studyId),
                promptsSyntax: ExportFileNames.promptsSyntax(study: studyId)), sites: sites, ownSite: current.site), context)
    }

    /// Streams the export in the chosen format and filters (``StudyExports``): the rows go to
    /// private temporary files as the store hands them over (the memory of one row), then to the
    /// browser in chunks, the files of FHIR one after the other. The audit line records format,
    /// filters and rows before the first byte leaves.
    func export(_ request: Request, _ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        let query = request.uri.queryParameters
        guard let format = query["format"].flatMap({ ExportFormat(rawValue: String($0)) }) else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.format")
        }
        var filter = ExportFilter()
        if let questionnaire = query["questionnaire"].map(String.init), !questionnaire.isEmpty { filter.questionnaire = questionnaire }
        // A wide file is one questionnaire's: one download, one file.
        guard format != .wide || filter.questionnaire != nil else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.wideQuestionnaire")
        }
        (filter.from, filter.to) = try Self.days(query)
        filter.site = Self.site(query, context)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-console-\(UUID().uuidString)")
        let written: StudyExports.Written
        do {
            written = try await exports(context).answers(of: studyId, format: format, filter: filter, into: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let files = written.files
        guard let first = files.first else {
            try? FileManager.default.removeItem(at: directory)
            throw ConsoleRefusal(.unprocessableContent, "console.error.wideQuestionnaire")
        }
        let name = format == .fhirNDJSON ? "\(studyId)-fhir.ndjson" : first.lastPathComponent
        return Self.stream(files, from: directory, name: name, type: format.mediaType)
    }

    /// The files one after the other as one download, read in chunks; `directory` is removed
    /// when the last byte is sent.
    static func stream(_ files: [URL], from directory: URL, name: String, type: String) -> Response {
        let body = ResponseBody { writer in
            defer { try? FileManager.default.removeItem(at: directory) }
            for url in files {
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""], body: body)
    }

    /// Everything of the study as one ZIP (``StudyExports/archive(of:into:)``), written to a
    /// private temporary folder and streamed from it.
    func archive(_ request: Request, _ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-console-\(UUID().uuidString)")
        let written: StudyExports.Written
        do {
            written = try await exports(context).archive(of: studyId, site: Self.site(request.uri.queryParameters, context), into: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        return Self.stream(written.files, from: directory, name: ExportFileNames.archive(study: studyId), type: "application/zip")
    }

    /// The codebook of the wide files, a row per column (``Codebook/wideCSV(_:)``).
    func wideCodebook(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).wideCodebook(of: studyId), name: ExportFileNames.wideCodebook(study: studyId),
                             type: "text/csv; charset=utf-8")
    }

    /// The R script that reads the answers and the wide files as downloaded (``RScript``).
    func rScript(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).rScript(of: studyId), name: ExportFileNames.rScript(study: studyId),
                             type: "text/plain; charset=utf-8")
    }

    /// The site a download keeps to: a site's staff always their own; anyone else the query's
    /// `site` when given (checked against the study's sites by the export).
    static func site(_ query: Parameters, _ context: StudyContext) -> String? {
        context.study.site ?? query["site"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The query's `from` and `to` days (`YYYY-MM-DD`, UTC) as the start of the first and the end
    /// of the last; a malformed one is refused with the page's error.
    static func days(_ query: Parameters) throws -> (from: Date?, to: Date?) {
        func day(_ name: String, plus days: Double) throws -> Date? {
            guard let text = query[Substring(name)].map(String.init), !text.isEmpty else { return nil }
            guard let date = Timestamps.parse(text + "T00:00:00Z") else { throw ConsoleRefusal(.unprocessableContent, "console.error.date") }
            return date.addingTimeInterval(days * 86_400)
        }
        return (try day("from", plus: 0), try day("to", plus: 1))
    }

    /// `uniti-server adherence --format csv` from the data page (``StudyExports``): per
    /// participant and questionnaire the counts and the rate of the prompts due in the chosen
    /// days, flagged as the participants page flags them (``AdherenceReport/console``). A line
    /// per participant and questionnaire (a study's tens of thousands at most).
    func adherenceReport(_ request: Request, _ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        let (from, to) = try Self.days(request.uri.queryParameters)
        let lines = Mutex<[String]>([CSV.line(AdherenceReport.header)])
        try await exports(context).adherence(of: studyId, from: from, to: to, site: Self.site(request.uri.queryParameters, context),
                                             flags: AdherenceReport.console, form: "csv") { line in
            lines.withLock { $0.append(CSV.line(line.cells)) }
        }
        return Self.download(lines.withLock { $0.joined() }, name: "\(studyId)-adherence.csv", type: "text/csv; charset=utf-8")
    }

    /// The prompt table (``PromptTable``): a row per prompt of every participant, with its outcome.
    func promptTable(_ request: Request, _ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        // Written to a private temporary file as the store hands the events over, then streamed:
        // 10,000 participants × 200 prompts are some 600 MB of CSV, never held at once.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-console-\(UUID().uuidString)")
        let name = ExportFileNames.prompts(study: studyId)
        do {
            try PrivateFiles.createFolder(directory.path)
            let file = try ExportFile(directory.appendingPathComponent(name))
            try await exports(context).prompts(of: studyId, site: Self.site(request.uri.queryParameters, context), into: file)
            return Self.stream([file.destination], from: directory, name: name, type: "text/csv; charset=utf-8")
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The codebook of the study's questionnaires, every version (``Codebook``), as a download of its own.
    func codebook(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).codebook(of: studyId), name: ExportFileNames.codebook(study: studyId), type: "text/csv; charset=utf-8")
    }

    /// SPSS syntax that reads the SPSS data export with the codebook's types and value labels
    /// (``SPSSSyntax``).
    func spssSyntax(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).spssSyntax(of: studyId), name: ExportFileNames.spssSyntax(study: studyId), type: "text/plain; charset=utf-8")
    }

    /// The SPSS syntax that reads the prompt table as downloaded (``SPSSSyntax/promptTable(data:)``).
    func promptsSyntax(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).promptsSyntax(of: studyId), name: ExportFileNames.promptsSyntax(study: studyId),
                             type: "text/plain; charset=utf-8")
    }

    static func download(_ text: String, name: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
