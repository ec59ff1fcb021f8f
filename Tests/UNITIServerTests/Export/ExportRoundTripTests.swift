import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Issue 44, hole 1: a participant's free text added rows and live formulas to the answers CSV
/// (`looks harmless\r\n=2+5…` came out unquoted as four lines, three of them formulas, because
/// `"\r\n"` is one Swift `Character`, equal to neither `"\n"` nor `"\r"`). Every export is read
/// back by real readers: Python's csv module and GNU PSPP.
@Suite("Exports read back by Python's csv module and GNU PSPP (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct ExportRoundTripTests {
    /// Free-text answers a spreadsheet or a line-splitting reader would misread, and the text
    /// each must come back as: the same, with a `'` before every line that would begin a formula.
    static let notes: [(sent: String, expected: String)] = [
        ("looks harmless\r\n=2+5\r\n@SUM(1+9)\r\n+cmd|' /C calc'!A0", "looks harmless\r\n'=2+5\r\n'@SUM(1+9)\r\n'+cmd|' /C calc'!A0"),
        ("carriage\rreturn", "carriage\rreturn"),
        ("line\nfeed", "line\nfeed"),
        ("a \"quoted\" word", "a \"quoted\" word"),
        ("one, two", "one, two"),
        ("semi;colon", "semi;colon"),
        ("tab\tinside", "tab\tinside"),
        ("=1+2", "'=1+2"),
        ("+41 79 000", "'+41 79 000"),
        ("-3", "-3"),
        ("@home", "'@home"),
        ("\tindented", "'\tindented"),
        ("minus\n-below", "minus\n'-below"),
        ("back\\slash\\n and \\b", "back\\slash\\n and \\b"),
        ("Übelkeit groß", "Übelkeit groß"),
    ]

    /// An item text for the codebook with quotes, commas, a semicolon, a tab and a leading formula.
    static let itemText = #"=HYPERLINK("http://x.example", "click"); ok, "fine"\#there"#

    @Test("a cell is quoted by its bytes (CR, LF, CRLF, quote, comma) and every line that would begin a formula gets a '")
    func cells() {
        #expect(CSV.line(["a\r\nb"]) == "\"a\r\nb\"\r\n", "CRLF is one Character, but two bytes to quote")
        #expect(CSV.line(["a\rb", "c\nd", "e\"f", "g,h", "i;j"]) == "\"a\rb\",\"c\nd\",\"e\"\"f\",\"g,h\",i;j\r\n")
        for (sent, expected) in Self.notes { #expect(CSV.neutralised(sent) == expected, "\(sent.debugDescription)") }
        #expect(CSV.neutralised("-42.5") == "-42.5" && CSV.neutralised("+2") == "+2" && CSV.neutralised("-1e-07") == "-1e-07")
        // The byte-by-byte check says what the regex of a plain number says, for every string
        // of up to four of these characters.
        let parts = ["-", "+", "1", ".", "e", "E", "x", " "]
        var cells = [""]
        for _ in 0..<4 { cells += cells.flatMap { cell in parts.map { cell + $0 } } }
        for cell in Set(cells) {
            #expect(CSV.isPlainNumber(cell) == (cell.wholeMatch(of: #/[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/#) != nil), "\(cell.debugDescription)")
        }
        #expect(CSV.neutralised("2027-01-15T09:00:00+01:00") == "2027-01-15T09:00:00+01:00" && CSV.neutralised("-3 dB") == "'-3 dB")
        #expect(CSV.line(["x\r\ny\\z"], lineBreaks: .escaped) == "x\\r\\ny\\bz\r\n", "SPSS data: one record per line")
    }

    @Test("the answers CSV, the codebook, the adherence CSV and the SPSS data round-trip through Python's csv module and PSPP: the same cells on every row, the same text back; console and command line write the same bytes",
          arguments: StoreKind.allCases)
    func roundTrip(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-roundtrip-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await fixture.run { client in
                try await fixture.study("alpha")
                let definition = dailyQuestionnaireJSON().replacingOccurrences(
                    of: #"{"en": "good"}}]}"#,
                    with: #"{"en": "good"}}]}, {"type": "freeText", "label": "note", "text": {"en": \#(try JSONCoding.string(Self.itemText))}}"#)
                _ = try await StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                    .importQuestionnaire(Data(definition.utf8), into: "alpha", module: "tys")
                let token = try await fixture.participant(client, "pat", joining: "alpha")
                var sheets: [UUID: String] = [:]
                let batch = Self.notes.map { note -> AnswerSheet in
                    var answered = sheet(loudness: 40, mood: 2)
                    answered.answers["note"] = Answer(value: .text(note.sent), answeredAt: answered.startedAt)
                    sheets[answered.id] = note.expected
                    return answered
                }
                let sent = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: batch))
                #expect(sent.status == .ok, "\(sent.text)")
                // The first sheet answered a prompt; a second prompt was missed.
                let due = batch[0].startedAt
                let events = [PromptEventKind.planned, .delivered, .completed].map {
                    PromptEvent(promptId: "tys/daily/a", moduleId: "tys", questionnaireId: "daily", kind: $0, at: due, dueAt: due,
                                sheetId: $0 == .completed ? batch[0].id : nil)
                } + [PromptEventKind.planned, .delivered, .expired].map {
                    PromptEvent(promptId: "tys/daily/b", moduleId: "tys", questionnaireId: "daily", kind: $0, at: due, dueAt: due)
                }
                #expect(try await client.json(.post, "/api/v1/prompts/events", token: token, body: PromptEventBatch(events: events)).status == .ok)

                let editor = try await fixture.enrolledStaff("ed")
                try await fixture.role(.editor, editor, "alpha")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, editor)
                let base = "/console/studies/alpha/data"
                let downloads = ["alpha-answers.csv": "\(base)/export?format=csv", "alpha-answers-spss.csv": "\(base)/export?format=spss",
                                 "alpha-codebook.csv": "\(base)/codebook.csv", "alpha-adherence.csv": "\(base)/adherence.csv",
                                 "alpha-answers.sps": "\(base)/answers.sps", "alpha-prompts.csv": "\(base)/prompts.csv"]
                for (name, path) in downloads {
                    let response = try await browser.get(path)
                    #expect(response.status == .ok, "\(path)")
                    try Data(buffer: response.body).write(to: directory.appendingPathComponent(name))
                }

                // Python's csv module: every row as many cells as the header, the notes as sent
                // (neutralised), the SPSS data's escapes only where line breaks and backslashes were.
                let python = try Self.pythonRows(["alpha-answers.csv", "alpha-answers-spss.csv", "alpha-codebook.csv", "alpha-adherence.csv",
                                                  "alpha-prompts.csv"], in: directory)
                for (file, rows) in python {
                    #expect(rows.count > 1 && rows.allSatisfy { $0.count == rows[0].count }, "\(file): \(rows.map(\.count))")
                }
                let answers = try #require(python["alpha-answers.csv"])
                #expect(answers.count == 1 + 3 * Self.notes.count, "three answers per sheet, each one row")
                let notesBack = Dictionary(uniqueKeysWithValues: answers.filter { $0[4] == "note" }.map { (UUID(uuidString: $0[1])!, $0[5]) })
                #expect(notesBack == sheets)
                let spssRows = try #require(python["alpha-answers-spss.csv"])
                #expect(spssRows.count == answers.count)
                #expect(spssRows.allSatisfy { !$0.joined().contains("\n") && !$0.joined().contains("\r") })
                #expect(try #require(python["alpha-codebook.csv"]).contains { $0[2] == "note" && $0[4] == "'" + Self.itemText })
                let prompts = try #require(python["alpha-prompts.csv"])
                #expect(prompts.first == PromptTable.header)
                #expect(prompts.dropFirst().map { $0[PromptTable.header.firstIndex(of: "outcome")!] } == ["completed", "missed"])
                #expect(prompts[1][PromptTable.header.firstIndex(of: "sheet")!] == batch[0].id.uuidString.lowercased())

                // PSPP: the SPSS syntax reads the SPSS data into one case per sheet with each note
                // exactly as the CSV has it; the codebook and the adherence CSV read cell for cell
                // as Python reads them.
                #expect(try Self.psppNotes(in: directory) == sheets)
                for file in ["alpha-codebook.csv", "alpha-adherence.csv"] {
                    let rows = try #require(python[file])
                    #expect(try Self.psppRows(file, columns: rows[0].count, in: directory) == Array(rows.dropFirst()), "\(file)")
                }

                // The command line writes the same bytes.
                let out = directory.appendingPathComponent("cli")
                for format in ["csv", "spss"] {
                    try await runServerCommand(["export", "--study", "alpha", "--format", format, "--out", out.path, "--database", opened.location]
                                               + (format == "csv" ? ["--prompts"] : []))
                }
                for name in ["alpha-answers.csv", "alpha-answers-spss.csv", "alpha-codebook.csv", "alpha-answers.sps", "alpha-prompts.csv"] {
                    #expect(try Data(contentsOf: out.appendingPathComponent(name)) == Data(contentsOf: directory.appendingPathComponent(name)), "\(name)")
                }
                let (status, adherence) = try ServerBinaryTests.runCommand(["adherence", "--study", "alpha", "--format", "csv", "--below", "0.5",
                                                                            "--silent-days", "7", "--as-of", Timestamps.format(fixture.clock.now()),
                                                                            "--database", opened.location])
                #expect(status == 0, "\(adherence)")
                #expect(adherence == (try String(contentsOf: directory.appendingPathComponent("alpha-adherence.csv"), encoding: .utf8)),
                        "the adherence CSV ends its lines alike (CRLF) from both doors")
            }
        }
    }

    /// Each file's rows as Python's csv module reads them (`newline=''`, as its documentation asks).
    static func pythonRows(_ files: [String], in directory: URL) throws -> [String: [[String]]] {
        let script = """
            import csv, json, sys
            print(json.dumps({name: list(csv.reader(open(name, newline='', encoding='utf-8'))) for name in sys.argv[1:]}))
            """
        let output = try run(python, ["-c", script] + files, in: directory)
        return try JSONDecoder().decode([String: [[String]]].self, from: Data(output.utf8))
    }

    /// The venv's Python (Scripts/bootstrap --tests), else the system's.
    static var python: String {
        let venv = repositoryRoot
            .appendingPathComponent(".build-venv/tools/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }

    /// The SPSS syntax run on the SPSS data in PSPP: each sheet's note, read byte for byte (as
    /// hex, since PSPP's own CSV writer drops a carriage return before a line feed), without the
    /// spaces PSPP pads a string variable with.
    static func psppNotes(in directory: URL) throws -> [UUID: String] {
        let syntax = try String(contentsOf: directory.appendingPathComponent("alpha-answers.sps"), encoding: .utf8)
            + "WRITE OUTFILE='notes.txt' /sheet (A36) daily_note (AHEX\(2 * SPSSSyntax.textWidth)).\nEXECUTE.\n"
        try Data(syntax.utf8).write(to: directory.appendingPathComponent("notes.sps"))
        let output = try run("pspp", ["notes.sps"], in: directory)
        #expect(!output.contains("error") && !output.contains("warning"), "\(output)")
        let lines = try String(contentsOf: directory.appendingPathComponent("notes.txt"), encoding: .utf8).split(separator: "\n")
        return Dictionary(uniqueKeysWithValues: lines.compactMap { line -> (UUID, String)? in
            guard let id = UUID(uuidString: String(line.prefix(36))) else { return nil }
            return (id, text(hex: line.dropFirst(36)))
        })
    }

    /// A CSV's rows after the header as PSPP reads them (`GET DATA` with its quoting), each cell
    /// as text.
    static func psppRows(_ file: String, columns: Int, in directory: URL) throws -> [[String]] {
        let width = 1000
        let names = (1...columns).map { "c\($0)" }
        let syntax = """
            GET DATA /TYPE=TXT /FILE='\(file)' /ENCODING='UTF8' /ARRANGEMENT=DELIMITED /DELCASE=LINE
              /DELIMITERS=',' /QUALIFIER='"' /FIRSTCASE=2
              /VARIABLES=\(names.map { "\($0) A\(width)" }.joined(separator: " ")).
            WRITE OUTFILE='rows.txt' /\(names.map { "\($0) (AHEX\(2 * width))" }.joined(separator: " ")).
            EXECUTE.

            """
        try Data(syntax.utf8).write(to: directory.appendingPathComponent("rows.sps"))
        let output = try run("pspp", ["rows.sps"], in: directory)
        #expect(!output.contains("error") && !output.contains("warning"), "\(file): \(output)")
        return try String(contentsOf: directory.appendingPathComponent("rows.txt"), encoding: .utf8).split(separator: "\n").map { line in
            (0..<columns).map { column in
                text(hex: line.dropFirst(column * 2 * width).prefix(2 * width))
            }
        }
    }

    static func text(hex: Substring) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), next > index {
            if let byte = UInt8(hex[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
        while bytes.last == 0x20 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Runs `program` (a path, or a name on `PATH`) in `directory`; its output, or a failure naming it.
    static func run(_ program: String, _ arguments: [String], in directory: URL) throws -> String {
        let found = program.hasPrefix("/") ? ExternalProgram(path: program) : ExternalProgram.find(program, in: nil)
        guard let found else { throw TestFailure("\(program) is missing: run Scripts/bootstrap --tests") }
        let outcome = try found.run(arguments, in: directory)
        guard outcome.succeeded else { throw TestFailure("\(program) failed: \(outcome.output)") }
        return outcome.output
    }
}

extension ConsoleFixture {
    /// A participant registered and activated through the API (the code from the spool), a
    /// member of `study` (a by-request study is approved by the operator), at the site of the
    /// enrolment code `site` if given; returns the token.
    func participant(_ client: any TestClientProtocol, _ name: String, joining study: String, site: String? = nil) async throws -> String {
        let token = try await account(client, name)
        let consent = try await store.study(id: study)?.consentVersion
        _ = try await client.json(.post, "/api/v1/studies/\(study)/join", token: token, body: JoinStudyRequest(consentVersion: consent, site: site))
        if try await store.membership(studyId: study, userId: try #require(try await store.user(login: name)).id) == .pending {
            try await StudyAdministration(store: store, actor: .operator, now: clock.now())
                .decideJoinRequest(studyId: study, userId: try #require(try await store.user(login: name)).id, status: .member)
        }
        return token
    }

    /// An account registered and activated through the API (the code from the spool), in no
    /// study; returns the token. Its password is "correct horse".
    func account(_ client: any TestClientProtocol, _ name: String) async throws -> String {
        let email = "\(name)@example.org", password = "correct horse"
        #expect(try await client.json(.post, "/api/v1/account/register",
                                      body: RegisterRequest(username: name, email: email, password: password)).status == .created)
        await environment.mail.idle()
        let spool = try #require(environment.mailer as? SpoolMailer)
        let message = try #require(try spool.messages().last { (try? String(contentsOf: $0.url, encoding: .utf8))?.contains("To: \(email)\r\n") == true })
        let code = try #require(Self.code(in: try String(contentsOf: message.url, encoding: .utf8).replacingOccurrences(of: "\r\n", with: "\n")))
        #expect(try await client.json(.post, "/api/v1/account/activate", body: TokenRequest(token: code)).status == .ok)
        let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: name, password: password))
        return try login.decode(SessionTokens.self).accessToken
    }
}
