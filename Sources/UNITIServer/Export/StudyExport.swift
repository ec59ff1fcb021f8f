import Foundation
import Synchronization
import UNITIProtocol

/// Which sheets an export takes (the console's filters): one questionnaire, sheets started from
/// `from` and before `to`, one site's participants; all when nothing is set.
struct ExportFilter: Sendable {
    var questionnaire: String?
    var from: Date?
    var to: Date?
    var site: String?
    /// How arms are written: nil as their ids, else by these codes (arm id → `A`, `B`, …) for a
    /// reader blind to allocation (``ArmNames``).
    var armCodes: [String: String]? = nil

    func admits(_ exported: ExportedSheet) -> Bool {
        let started = exported.sheet.startedAt.date
        return (questionnaire.map { $0 == exported.sheet.questionnaireID } ?? true)
            && (from.map { started >= $0 } ?? true) && (to.map { started < $0 } ?? true)
            && (site.map { $0 == exported.site } ?? true)
    }

    /// The filters as the audit trail records them.
    var described: [String: String] {
        var result: [String: String] = [:]
        if let questionnaire { result["questionnaire"] = questionnaire }
        if let from { result["from"] = Timestamps.format(from) }
        if let to { result["to"] = Timestamps.format(to) }
        if let site { result["site"] = site }
        if armCodes != nil { result["arms"] = "codes" }
        return result
    }
}

/// The rows of a study export as CSV (``CSV``), JSON or JSON lines, and its sheets as FHIR
/// NDJSON, written as the store hands them over. CSV columns added later go at the end, so that a
/// script reading the older columns by position keeps working.
public enum StudyExport {
    /// Streams a study's rows (of the sheets `filter` admits) into `file` in `format` (csv, spss,
    /// json or jsonl); returns the row count.
    static func rows(of study: String, from store: ServerStore, format: ExportFormat, to file: ExportFile,
                     filter: ExportFilter = ExportFilter()) async throws -> Int {
        try await write(of: study, from: store, to: Sinks(rows: [(format, file)]), filter: filter).rows
    }

    /// Where one pass over a study's sheets writes: row files in their formats, and the wide
    /// file of each questionnaire (by questionnaire id).
    struct Sinks: Sendable {
        var rows: [(format: ExportFormat, file: ExportFile)] = []
        var wide: [String: (layout: WideLayout, file: ExportFile)] = [:]
    }

    /// Streams a study's sheets (those `filter` admits) once, from one snapshot, into every sink:
    /// the row files and the wide files hold the same sheets. Returns the rows (answers) and the
    /// sheets written.
    static func write(of study: String, from store: ServerStore, to sinks: Sinks,
                      filter: ExportFilter = ExportFilter()) async throws -> (rows: Int, sheets: Int) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let count = Mutex((rows: 0, sheets: 0))
        for (format, file) in sinks.rows {
            switch format {
            case .csv: try file.write(CSV.line(header))
            case .spss: try file.write(CSV.line(header, lineBreaks: .escaped))
            case .json: try file.write("[")
            case .jsonl, .fhirNDJSON, .wide: break
            }
        }
        for (layout, file) in sinks.wide.values { try file.write(CSV.line(layout.columns.map(\.name))) }
        try await store.exportSheets(studyId: study) { exported in
            guard filter.admits(exported) else { return }
            var exported = exported
            if let codes = filter.armCodes { exported.arm = exported.arm.map { codes[$0] ?? "?" } }
            if let (layout, file) = sinks.wide[exported.sheet.questionnaireID] {
                try file.write(CSV.line(layout.cells(exported)))
            }
            count.withLock { $0.sheets += 1 }
            guard !sinks.rows.isEmpty else { return }
            for row in exported.rows {
                let index = count.withLock { count in
                    defer { count.rows += 1 }
                    return count.rows
                }
                for (format, file) in sinks.rows {
                    switch format {
                    case .csv: try file.write(CSV.line(fields(row)))
                    case .spss: try file.write(CSV.line(fields(row), lineBreaks: .escaped))
                    case .json:
                        try file.write(index == 0 ? "\n" : ",\n")
                        try file.write(try encoder.encode(row))
                    case .jsonl, .fhirNDJSON:
                        try file.write(try encoder.encode(row))
                        try file.write("\n")
                    case .wide: break
                    }
                }
            }
        }
        let counts = count.withLock { $0 }
        for (format, file) in sinks.rows where format == .json { try file.write(counts.rows == 0 ? "]\n" : "\n]\n") }
        return counts
    }

    /// Streams a study's sheets (those `filter` admits) as FHIR resources into the three files;
    /// returns the counts.
    static func fhir(of study: String, from store: ServerStore, patients: ExportFile, questionnaires: ExportFile,
                     responses: ExportFile, filter: ExportFilter = ExportFilter()) async throws -> (patients: Int, questionnaires: Int, responses: Int) {
        // The versions answered are few; they are read before the sheets stream.
        var definitions: [String: QuestionnaireDefinition] = [:]
        for (id, version) in try await store.answeredQuestionnaireVersions(studyId: study) {
            if let document = try await store.questionnaire(id: id, version: version) {
                definitions["\(id)#\(version)"] = document.definition
                try questionnaires.write(try FHIRBulkExport.line(FHIRBulkExport.questionnaireResource(document.definition)))
            }
        }
        let known = definitions
        // Sheets come by pseudonym, so a Patient is written when its pseudonym first appears.
        let state = Mutex((last: "", patients: 0, responses: 0))
        try await store.exportSheets(studyId: study) { exported in
            guard filter.admits(exported) else { return }
            let patient = FHIRBulkExport.patient(pseudonym: exported.participant)
            let isNew = state.withLock { state in
                defer { state.last = exported.participant; state.responses += 1 }
                guard state.last != exported.participant else { return false }
                state.patients += 1
                return true
            }
            if isNew { try patients.write(try FHIRBulkExport.line(FHIRBulkExport.patientResource(patient))) }
            let definition = known["\(exported.sheet.questionnaireID)#\(exported.sheet.questionnaireVersion)"]
            try responses.write(try FHIRBulkExport.line(FHIRBulkExport.responseResource(exported.sheet, definition: definition, patient: patient)))
        }
        let counts = state.withLock { $0 }
        return (counts.patients, definitions.count, counts.responses)
    }

    static let header = ["participant", "sheet", "questionnaire", "version", "label", "value", "answered_at", "started_at",
                         "ended_at", "received_at", "module", "microphone_dbfs", "microphone_measured_at",
                         "latitude", "longitude", "altitude_m", "accuracy_m", "location_measured_at", "consent_version",
                         "prompt_id", "prompted_at", "late", "initiated_by", "language", "site", "arm"]

    /// A row's fields in the order of ``header``.
    static func fields(_ row: ExportRow) -> [String] {
        [row.participant, row.sheetId, row.questionnaireId, String(row.questionnaireVersion), row.label, row.value,
         row.answeredAt, row.startedAt, row.endedAt ?? "", row.receivedAt, row.module ?? "",
         number(row.microphoneDbfs), row.microphoneMeasuredAt ?? "",
         number(row.latitude), number(row.longitude), number(row.altitudeMeters), number(row.accuracyMeters),
         row.locationMeasuredAt ?? "", row.consentVersion.map(String.init) ?? "",
         row.promptId ?? "", row.promptedAt ?? "", row.late.map { $0 ? "true" : "false" } ?? "", row.initiatedBy ?? "", row.language ?? "",
         row.site ?? "", row.arm ?? ""]
    }

    /// A reading as an answer's number is written (`520`, `-42.5`); empty when absent.
    static func number(_ value: Double?) -> String {
        value.map { AnswerValue.number($0).description } ?? ""
    }
}
