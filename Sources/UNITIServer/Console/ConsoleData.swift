import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText
import Synchronization

/// Data: the answers' exports, the codebook, the SPSS syntax and the adherence report (``StudyExports``).
extension ConsolePage {
    static let data = study("data", "studies/:study/data", .viewer, tab: "data") { try await $0.data($2) }
    static let export = study("export", "studies/:study/data/export", .editor) { try await $0.export($1, $2) }
    static let codebook = study("codebook", "studies/:study/data/codebook.csv", .editor) { try await $0.codebook($2) }
    static let spssSyntax = study("spssSyntax", "studies/:study/data/answers.sps", .editor) { try await $0.spssSyntax($2) }
    static let adherenceReport = study("adherenceReport", "studies/:study/data/adherence.csv", .editor) {
        try await $0.adherenceReport($1, $2)
    }

    /// This feature's pages, in the order of its tabs (``all``).
    static let promptTable = study("promptTable", "studies/:study/data/prompts.csv", .editor) { try await $0.promptTable($2) }
    static let dataPages: [ConsolePage] = [data, export, codebook, spssSyntax, adherenceReport, promptTable]
}

extension ConsoleRoutes {

    func data(_ context: StudyContext) async throws -> Response {
        let current = context.study
        let ids = try await store.latestQuestionnaires(studyId: current.study.id).map(\.id)
        return try await page(ConsoleDataPage(questionnaires: ids, canExport: ConsolePage.export.allows(current.role)), context)
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
        (filter.from, filter.to) = try Self.days(query)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-console-\(UUID().uuidString)")
        let written: StudyExports.Written
        do {
            written = try await exports(context).answers(of: studyId, format: format, filter: filter, into: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let files = written.files
        let name = format == .fhirNDJSON ? "\(studyId)-fhir.ndjson" : format.fileNames(study: studyId)[0]
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
        return Response(status: .ok, headers: [.contentType: format.mediaType, .contentDisposition: "attachment; filename=\"\(name)\""], body: body)
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
        try await exports(context).adherence(of: studyId, from: from, to: to, flags: AdherenceReport.console, form: "csv") { line in
            lines.withLock { $0.append(CSV.line(line.cells)) }
        }
        return Self.download(lines.withLock { $0.joined() }, name: "\(studyId)-adherence.csv", type: "text/csv; charset=utf-8")
    }

    /// The prompt table (``PromptTable``): a row per prompt of every participant, with its outcome.
    func promptTable(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).prompts(of: studyId), name: "\(studyId)-prompts.csv", type: "text/csv; charset=utf-8")
    }

    /// The codebook of the study's questionnaires, every version (``Codebook``), as a download of its own.
    func codebook(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).codebook(of: studyId), name: "\(studyId)-codebook.csv", type: "text/csv; charset=utf-8")
    }

    /// SPSS syntax that reads the SPSS data export with the codebook's types and value labels
    /// (``SPSSSyntax``).
    func spssSyntax(_ context: StudyContext) async throws -> Response {
        let studyId = context.study.study.id
        return Self.download(try await exports(context).spssSyntax(of: studyId), name: "\(studyId)-answers.sps", type: "text/plain; charset=utf-8")
    }

    static func download(_ text: String, name: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
