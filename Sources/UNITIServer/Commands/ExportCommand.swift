import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server export --study ID --format csv|json --out DIR`: one row per answer, participants
/// by pseudonym only, with the module presenting the questionnaire and the sheet's sensor readings.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Export a study's answers.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, json }

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Option(help: "csv or json.") var format: Format = .csv
    @Option(help: "Directory to write into (created if needed).") var out: String

    func run() async throws {
        let store = try await database.openStore()
        guard try await store.study(id: study) != nil else { throw ValidationError("No study '\(study)'; see 'study list'.") }
        let rows = try await store.exportRows(studyId: study)
        let directory = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(study)-answers.\(format.rawValue)")
        let data: Data
        switch format {
        case .csv: data = Data(StudyExport.csv(rows).utf8)
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            data = try encoder.encode(rows)
        }
        try data.write(to: file, options: .atomic)
        print("Wrote \(rows.count) rows to \(file.path).")
    }
}

/// The CSV form of an export (RFC 4180 quoting). Columns added later go at the end, so that a
/// script reading the older columns by position keeps working.
public enum StudyExport {
    static let header = ["participant", "sheet", "questionnaire", "version", "label", "value", "answered_at", "started_at",
                         "ended_at", "received_at", "module", "microphone_dbfs", "microphone_measured_at",
                         "latitude", "longitude", "altitude_m", "accuracy_m", "location_measured_at"]

    static func csv(_ rows: [ExportRow]) -> String {
        var lines = [header.joined(separator: ",")]
        for row in rows {
            lines.append([row.participant, row.sheetId, row.questionnaireId, String(row.questionnaireVersion), row.label, row.value,
                          row.answeredAt, row.startedAt, row.endedAt ?? "", row.receivedAt, row.module ?? "",
                          number(row.microphoneDbfs), row.microphoneMeasuredAt ?? "",
                          number(row.latitude), number(row.longitude), number(row.altitudeMeters), number(row.accuracyMeters),
                          row.locationMeasuredAt ?? ""].map(quote).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A reading as an answer's number is written (`520`, `-42.5`); empty when absent.
    static func number(_ value: Double?) -> String {
        value.map { AnswerValue.number($0).description } ?? ""
    }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
