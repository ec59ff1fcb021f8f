import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server export --study ID --format csv|json --out DIR`: one row per answer, participants
/// by pseudonym only.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Export a study's answers.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, json }

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Option(help: "csv or json.") var format: Format = .csv
    @Option(help: "Directory to write into (created if needed).") var out: String

    func run() async throws {
        let store = try database.openStore()
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
        print("Wrote \(rows.count) answers to \(file.path).")
    }
}

/// The CSV form of an export (RFC 4180 quoting).
public enum StudyExport {
    static let header = ["participant", "sheet", "questionnaire", "version", "label", "value", "answered_at", "started_at",
                         "ended_at", "received_at"]

    static func csv(_ rows: [ExportRow]) -> String {
        var lines = [header.joined(separator: ",")]
        for row in rows {
            lines.append([row.participant, row.sheetId, row.questionnaireId, String(row.questionnaireVersion), row.label, row.value,
                          row.answeredAt, row.startedAt, row.endedAt ?? "", row.receivedAt].map(quote).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
