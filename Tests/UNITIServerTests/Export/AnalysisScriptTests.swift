import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Issue 46, items 4 and 5: the wide files, the R script and the SPSS syntax run as downloaded.
/// A study with every kind of item, a conditional one, free text with quotes, commas, line
/// breaks and non-ASCII letters, and a participant who left the study keeping their answers, is
/// downloaded through the console (each file under the name its download has) and through
/// `uniti-server export --with-syntax`; real R (`Rscript`) and real GNU PSPP run the scripts.
/// Neither is skipped when missing: the test fails and says to run `Scripts/bootstrap --tests`.
@Suite("The R script and the SPSS syntax run as downloaded in real R and PSPP; the wide files and the ZIP", .timeLimit(.minutes(10)))
struct AnalysisScriptTests {
    static let questionnaire = #"""
        {"id": "mood-ema", "version": 1, "title": {"en": "Mood now"}, "kind": "oneTime",
         "items": [
           {"type": "headline", "label": "intro", "text": {"en": "Right now"}},
           {"type": "yesNo", "label": "alone", "text": {"en": "Are you alone?"}},
           {"type": "freeText", "label": "with-whom", "showIf": {"label": "alone", "equals": 1}, "text": {"en": "With whom, then?"}},
           {"type": "singleChoice", "label": "place", "text": {"en": "Where are you? \"home\", work"},
            "options": [{"value": 1, "text": {"en": "home, sweet \"home\""}}, {"value": 2, "text": {"en": "Büro/Straße α"}}]},
           {"type": "multipleChoice", "label": "doing", "text": {"en": "What are you doing?"},
            "options": [{"value": 1, "text": {"en": "working"}}, {"value": 2, "text": {"en": "resting"}}, {"value": 3, "text": {"en": "eating"}}]},
           {"type": "slider", "label": "stress", "text": {"en": "Stress"}, "min": 0, "max": 10, "step": 0.5},
           {"type": "scale", "label": "mood", "text": {"en": "Mood"}, "min": 1, "max": 7},
           {"type": "samValence", "label": "valence", "text": {"en": "Pleasure"}, "points": 9},
           {"type": "samArousal", "label": "arousal", "text": {"en": "Arousal"}, "points": 5},
           {"type": "date", "label": "since", "text": {"en": "Since when?"}},
           {"type": "freeText", "label": "note", "multiline": true, "text": {"en": "Anything else?"}}
         ]}
        """#

    /// Free text as sent (none begins a formula, so each comes back as sent).
    static let notes = ["She said \"no\", then \"yes\".", "Zeile eins\nZeile zwei, mit Komma", "Straße, Bäume, α-Wellen", "plain"]

    /// Version 3 changes the mood scale to 1–5 (``moodChanged``).
    static func answers(_ index: Int, at started: OffsetTimestamp, version: Int = 1) -> [String: Answer] {
        var values: [String: AnswerValue] = [
            "alone": .number(Double(index % 2)), "place": .number(Double(1 + index % 2)), "doing": .choices(index % 2 == 0 ? [1, 3] : [2]),
            "stress": .number(Double(index) + 0.5), "mood": .number(Double(1 + index % (version == 3 ? 5 : 7))), "valence": .number(5),
            "arousal": .number(3),
            "since": .text("2027-01-0\(1 + index % 9)"), "note": .text(notes[index % notes.count]),
        ]
        if index % 2 == 1 { values["with-whom"] = .text("Kollegin Jürgen's \"team\", α") }
        return values.mapValues { Answer(value: $0, answeredAt: started) }
    }

    /// The next version of `document` with the mood scale's range changed to 1–5: a new encoding,
    /// so a variable of its own; every other item stays.
    static func moodChanged(_ document: QuestionnaireDocument) throws -> QuestionnaireDocument {
        var next = document.nextVersion()
        let mood = try #require(next.definition.items.firstIndex { $0.label == "mood" })
        next.definition.items[mood] = try JSONDecoder().decode(QuestionnaireItem.self, from: Data(
            #"{"type": "scale", "label": "mood", "text": {"en": "Mood"}, "min": 1, "max": 5}"#.utf8))
        return next
    }

    @Test("every script runs without an error or warning, every variable has its label, every factor level its text, the rows are the database's; the CLI writes the same files and the ZIP holds them")
    func scriptsRunAsDownloaded() async throws {
        try await StoreKind.sqlite.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-scripts-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await fixture.run { client in
                try await fixture.study("midl")
                let administration = StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                let first = try await administration.importQuestionnaire(Data(Self.questionnaire.utf8), into: "midl", module: "tys").document
                _ = try await administration.importQuestionnaire(Data(dailyQuestionnaireJSON().utf8), into: "midl", module: "tys")
                var index = 0
                var times: [String: String] = [:]  // sheet id: started_at as seconds since 1970 (UTC) and offset in minutes
                // Ada answers version 1. Then the coordinator changes a setting (the completion
                // window: version 2, every variable kept), Ben answers; then an item (the mood
                // scale's range: version 3, a variable of its own), Cleo answers.
                var versions = [first]
                for name in ["ada", "ben", "cleo"] {
                    if name == "ben" {
                        var second = first.nextVersion()
                        second.definition.completionWindowMinutes = 45
                        #expect(try await administration.updateQuestionnaire(second, from: first)?.versionAdded == true)
                        versions.append(second)
                    }
                    if name == "cleo" {
                        let third = try Self.moodChanged(versions[1])
                        #expect(try await administration.addQuestionnaire(third, module: nil).versionAdded)
                        versions.append(third)
                    }
                    let version = versions.count
                    let token = try await fixture.participant(client, name, joining: "midl")
                    var batch = [sheet(startedAt: "2027-01-15T0\(index % 9):00:00+01:00")]
                    times[batch[0].id.uuidString.lowercased()] = "\(Int(batch[0].startedAt.date.timeIntervalSince1970)) 60"
                    for hour in 0..<3 {
                        let started = OffsetTimestamp(parsing: "2027-01-1\(hour + 1)T1\(hour):0\(index % 9):00\(hour == 2 ? "-05:00" : "+02:00")")!
                        let id = UUID()
                        times[id.uuidString.lowercased()] = "\(Int(started.date.timeIntervalSince1970)) \(started.offsetSeconds / 60)"
                        batch.append(AnswerSheet(id: id, questionnaireID: "mood-ema", questionnaireVersion: version,
                                                 answers: Self.answers(index, at: started, version: version), startedAt: started, endedAt: started,
                                                 clientVersion: "uniti-test 1"))
                        index += 1
                    }
                    let sent = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: batch))
                    #expect(sent.status == .ok, "\(sent.text)")
                    if name == "ada" {
                        // Two prompts: the first mood sheet answered one, the other was missed.
                        let due = batch[1].startedAt
                        let events = [PromptEventKind.planned, .delivered, .opened, .completed].map {
                            PromptEvent(promptId: "tys/mood/1", moduleId: "tys", questionnaireId: "mood-ema", kind: $0, at: due, dueAt: due,
                                        channel: $0 == .delivered ? "daemon" : nil, sheetId: $0 == .completed ? batch[1].id : nil)
                        } + [PromptEventKind.planned, .delivered, .snoozed, .expired].map {
                            PromptEvent(promptId: "tys/mood/2", moduleId: "tys", questionnaireId: "mood-ema", kind: $0, at: due, dueAt: due)
                        }
                        #expect(try await client.json(.post, "/api/v1/prompts/events", token: token, body: PromptEventBatch(events: events)).status == .ok)
                    }
                    if name == "cleo" {
                        // Withdrawn: left the study, answers kept.
                        #expect(try await client.post("/api/v1/studies/midl/leave", token: token).status == .ok)
                    }
                }
                let sheets: Int = try #require(try await fixture.store.database.row("SELECT COUNT(*) AS n FROM answer_sheets WHERE study_id = 'midl'")?["n"])
                let moodSheets: Int = try #require(try await fixture.store.database.row(
                    "SELECT COUNT(*) AS n FROM answer_sheets WHERE study_id = 'midl' AND questionnaire_id = 'mood-ema'")?["n"])
                let answers: Int = try #require(try await fixture.store.database.row(
                    "SELECT COUNT(*) AS n FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id WHERE s.study_id = 'midl'")?["n"])
                #expect(sheets == 12 && moodSheets == 9)

                let editor = try await fixture.enrolledStaff("ed")
                try await fixture.role(.editor, editor, "midl")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, editor)
                let base = "/console/studies/midl/data"
                let page = try await browser.get(base)
                let console = directory.appendingPathComponent("console")
                try FileManager.default.createDirectory(at: console, withIntermediateDirectories: true)
                var downloaded: [String] = []
                for path in ["export?format=csv", "export?format=spss", "codebook.csv", "wide-codebook.csv", "answers.R", "answers.sps",
                             "export?format=wide&questionnaire=mood-ema", "export?format=wide&questionnaire=daily", "prompts.csv", "prompts.sps",
                             "export.zip"] {
                    let response = try await browser.get("\(base)/\(path)")
                    #expect(response.status == .ok, "\(path)")
                    let disposition = try #require(response.headers[.contentDisposition], "\(path)")
                    let name = try #require(disposition.firstMatch(of: /filename="([^"]+)"/)?.1, "\(disposition)")
                    try Data(buffer: response.body).write(to: console.appendingPathComponent(String(name)))
                    downloaded.append(String(name))
                    // The page names each file as it downloads, so its lines run as shown.
                    if !path.hasPrefix("export?format=spss") && !path.hasPrefix("export?format=csv") {
                        #expect(page.text.contains(String(name)), "the data page names \(name)")
                    }
                }
                #expect(downloaded == ["midl-answers.csv", "midl-answers-spss.csv", "midl-codebook.csv", "midl-wide-codebook.csv",
                                       "midl-answers.R", "midl-answers.sps", "midl-mood-ema-wide.csv", "midl-daily-wide.csv", "midl-prompts.csv",
                                       "midl-prompts.sps", "midl-export.zip"])
                #expect(page.text.contains("Rscript midl-answers.R") && !page.text.contains("read.csv(&quot;answers.csv"))

                // R, as downloaded: no error, no warning, in a plain C locale.
                let plain = try Self.run("Rscript", ["midl-answers.R"], environment: ["LANG": "C", "LC_ALL": "C"], in: console)
                #expect(!plain.contains("Warning") && !plain.contains("Error") && !plain.contains("not here"), "\(plain)")
                // The worked example of Documentation/analysing-a-study.md runs on this download.
                let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Documentation/analysing-a-study.md"), encoding: .utf8)
                let example = try #require(guide.firstMatch(of: /```r\n([\s\S]*?)```/)?.1)
                try Data(example.utf8).write(to: console.appendingPathComponent("example.R"))
                let worked = try Self.run("Rscript", ["example.R"], environment: ["LANG": "C.UTF-8"], in: console)
                #expect(!worked.contains("Warning") && !worked.contains("Error") && worked.contains("median compliance: 0.5"), "\(worked)")
                let r = try Self.rReport(in: console)
                #expect(r.rows == ["midl-answers.csv": answers, "midl-mood-ema-wide.csv": moodSheets, "midl-daily-wide.csv": sheets - moodSheets,
                                   "midl-prompts.csv": 2])
                #expect(r.classes["midl-prompts.csv/scheduled_utc"] == "POSIXct" && r.classes["midl-prompts.csv/snoozed"] == "logical"
                        && r.classes["midl-prompts.csv/study_day"] == "integer", "\(r.classes.filter { $0.key.hasPrefix("midl-prompts") })")
                #expect(r.unlabelled.isEmpty, "\(r.unlabelled)")
                #expect(r.classes["midl-mood-ema-wide.csv/started_at"] == "POSIXct" && r.classes["midl-mood-ema-wide.csv/started_at_offset"] == "integer")
                #expect(r.classes["midl-answers.csv/answered_at"] == "POSIXct" && r.classes["midl-answers.csv/late"] == "logical")
                #expect(r.classes["midl-mood-ema-wide.csv/doing_2"] == "logical" && r.classes["midl-mood-ema-wide.csv/doing"] == "character")
                #expect(r.classes["midl-mood-ema-wide.csv/stress"] == "numeric" && r.classes["midl-mood-ema-wide.csv/mood"] == "integer")
                #expect(r.classes["midl-mood-ema-wide.csv/since"] == "Date")
                // The settings change kept every variable; the item change made `mood_v3` only.
                #expect(r.classes["midl-mood-ema-wide.csv/mood_v3"] == "integer", "\(r.classes.keys.sorted())")
                #expect(!r.classes.keys.contains { $0.contains("_v2") }, "\(r.classes.keys.sorted())")
                let wideRows = try #require(try ExportRoundTripTests.pythonRows(["midl-mood-ema-wide.csv"], in: console)["midl-mood-ema-wide.csv"])
                let wideHeader = try #require(wideRows.first)
                let column = { (row: [String], name: String) in row[wideHeader.firstIndex(of: name)!] }
                let moodByVersion = Dictionary(grouping: wideRows.dropFirst(), by: { column($0, "version") })
                    .mapValues { rows in rows.map { "\(column($0, "mood"))|\(column($0, "mood_v3"))" } }
                #expect(moodByVersion["1"] == ["1|", "2|", "3|"] && moodByVersion["2"] == ["4|", "5|", "6|"]
                        && moodByVersion["3"] == ["|2", "|3", "|4"], "\(moodByVersion)")
                let codebook = try #require(try ExportRoundTripTests.pythonRows(["midl-wide-codebook.csv"], in: console)["midl-wide-codebook.csv"])
                let moodColumns = codebook.filter { $0.count > 3 && $0[0] == "midl-mood-ema-wide.csv" && $0[1].hasPrefix("mood") }.map { "\($0[1]): \($0[3])" }
                #expect(moodColumns == ["mood: 1 2", "mood_v3: 3"], "the codebook says which versions each variable covers: \(moodColumns)")
                #expect(r.levels["midl-mood-ema-wide.csv/place"] == ["home, sweet \"home\"", "Büro/Straße α"])
                #expect(r.levels["midl-mood-ema-wide.csv/alone"] == ["yes", "no"])
                #expect(r.levels["midl-daily-wide.csv/mood"] == ["bad", "so-so", "good"])
                #expect(Set(r.notes) == Set(Self.notes), "free text comes back as sent: \(r.notes)")
                #expect(r.offsets == [120, -300], "the participants' offsets, kept beside the UTC times")
                #expect(r.times == times, "R: each sheet's start as the instant it was and the offset it was recorded in")
                #expect(r.conditional == [4: 5], "the conditional item: answered on the 4 sheets that showed it, empty on the 5 that did not")

                // PSPP: the syntax reads the SPSS data into one case per sheet, every variable
                // labelled, every choice's values labelled, the multiple choice as a set.
                let pspp = try Self.psppReport(in: console)
                #expect(pspp.cases == sheets)
                #expect(pspp.times == times, "PSPP: each sheet's start as the instant it was and the offset it was recorded in")
                #expect(pspp.unlabelled.isEmpty, "\(pspp.unlabelled)")
                #expect(pspp.levels["mood_ema_place"] == "Nominal" && pspp.levels["mood_ema_mood"] == "Ordinal"
                        && pspp.levels["mood_ema_stress"] == "Scale" && pspp.levels["mood_ema_doing_1"] == "Nominal", "\(pspp.levels)")
                #expect(pspp.formats["started_at"]?.hasPrefix("DATETIME") == true && pspp.formats["mood_ema_since"]?.hasPrefix("DATE") == true,
                        "\(pspp.formats)")
                #expect(pspp.valueLabels["mood_ema_place"] == ["1": "home, sweet \"home\"", "2": "Büro/Straße α"], "\(pspp.valueLabels)")
                #expect(pspp.valueLabels["mood_ema_alone"] == ["0": "yes", "1": "no"])
                #expect(pspp.valueLabels["mood_ema_doing_3"] == ["0": "not chosen", "1": "chosen"])
                #expect(pspp.output.contains("$mood_ema_doing"), "the multiple-response set")
                #expect(pspp.levels["mood_ema_v3_mood"] == "Ordinal" && !pspp.levels.keys.contains { $0.contains("_v2_") }, "\(pspp.levels.keys.sorted())")

                // PSPP reads the prompt table: a case per prompt, every variable labelled, the
                // _utc times the instants of the CSV, the _local ones the clock time (UTC + offset).
                let promptRows = try ExportRoundTripTests.pythonRows(["midl-prompts.csv"], in: console)["midl-prompts.csv"] ?? []
                let promptHeader = try #require(promptRows.first)
                let prompted = try Self.psppReport(in: console, syntax: "midl-prompts.sps", check: """
                    COMPUTE unix = scheduled_utc - 12219379200.
                    COMPUTE shift = scheduled_local - scheduled_utc.
                    WRITE OUTFILE='times.txt' /prompt (A255) ' ' unix (F12.0) ' ' shift (F8.0) ' ' utc_offset_minutes (F5.0).
                    COMPUTE one = 1.
                    AGGREGATE /OUTFILE=* /BREAK=one /cases = N.
                    LIST cases.

                    """)
                #expect(prompted.cases == promptRows.count - 1 && prompted.cases == 2)
                #expect(prompted.unlabelled.isEmpty && prompted.formats.count == PromptTable.columns.count, "\(prompted.unlabelled) \(prompted.formats)")
                #expect(prompted.formats["delivered_local"]?.hasPrefix("DATETIME") == true && prompted.levels["outcome"] == "Nominal"
                        && prompted.valueLabels["snoozed"] == ["0": "no", "1": "yes"], "\(prompted.formats) \(prompted.valueLabels)")
                let cell = { (row: [String], name: String) in row[promptHeader.firstIndex(of: name)!] }
                let expected = Dictionary(uniqueKeysWithValues: promptRows.dropFirst().map { row in
                    (cell(row, "prompt"), "\(Int(Timestamps.parse(cell(row, "scheduled_utc"))!.timeIntervalSince1970)) \(Int(cell(row, "utc_offset_minutes"))! * 60)")
                })
                #expect(prompted.times.mapValues { $0.split(separator: " ").prefix(2).joined(separator: " ") } == expected, "\(prompted.times)")

                // The command line writes the same files by the same names.
                let out = directory.appendingPathComponent("cli")
                for format in ["csv", "spss", "wide"] {
                    try await runServerCommand(["export", "--study", "midl", "--format", format, "--with-syntax", "--out", out.path,
                                                "--database", opened.location] + (format == "csv" ? ["--prompts"] : []))
                }
                for name in downloaded where name != "midl-export.zip" {
                    #expect(try Data(contentsOf: out.appendingPathComponent(name)) == Data(contentsOf: console.appendingPathComponent(name)), "\(name)")
                }

                // `export --zip` writes the console's ZIP; a folder of an earlier ZIP unpacked in
                // the same place is neither used nor removed; filters are refused in one line.
                let earlier = out.appendingPathComponent("midl-export")
                try FileManager.default.createDirectory(at: earlier, withIntermediateDirectories: true)
                try Data("mine".utf8).write(to: earlier.appendingPathComponent("analysis.R"))
                try await runServerCommand(["export", "--study", "midl", "--zip", "--out", out.path, "--database", opened.location])
                #expect(try String(contentsOf: earlier.appendingPathComponent("analysis.R"), encoding: .utf8) == "mine")
                #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }.isEmpty, "no staging folder left")
                let cliZip = directory.appendingPathComponent("cli-unzipped")
                try FileManager.default.createDirectory(at: cliZip, withIntermediateDirectories: true)
                _ = try Self.run("unzip", ["-q", out.appendingPathComponent("midl-export.zip").path], in: cliZip)
                for name in downloaded where name.hasSuffix(".csv") {
                    #expect(try Data(contentsOf: cliZip.appendingPathComponent("midl-export/\(name)")) == Data(contentsOf: console.appendingPathComponent(name)),
                            "the CLI's ZIP: \(name)")
                }
                do {
                    try await runServerCommand(["export", "--study", "midl", "--zip", "--from", "2027-01-01", "--out", out.path, "--database", opened.location])
                    Issue.record("--zip with --from was taken")
                } catch {
                    #expect(UNITIServerCommand.message(for: error) == "--zip writes every file of the whole study; leave out --from.")
                }

                // The ZIP: real unzip and Python's zipfile read it; it holds every file and a README naming each.
                let unzipped = directory.appendingPathComponent("unzipped")
                try FileManager.default.createDirectory(at: unzipped, withIntermediateDirectories: true)
                _ = try Self.run("python3", ["-m", "zipfile", "-t", console.appendingPathComponent("midl-export.zip").path], in: unzipped)
                _ = try Self.run("unzip", ["-q", console.appendingPathComponent("midl-export.zip").path], in: unzipped)
                let folder = unzipped.appendingPathComponent("midl-export")
                let readme = try String(contentsOf: folder.appendingPathComponent("README.txt"), encoding: .utf8)
                for name in downloaded where name != "midl-export.zip" {
                    #expect(readme.contains(name), "the README names \(name)")
                    let zipped = try Data(contentsOf: folder.appendingPathComponent(name))
                    if name.hasSuffix(".csv") {
                        #expect(zipped == (try Data(contentsOf: console.appendingPathComponent(name))), "\(name): the same rows as its own download")
                    }
                }
                let zippedR = try Self.run("Rscript", [ExportFileNames.rScript(study: "midl")], in: folder)
                #expect(!zippedR.contains("Warning") && !zippedR.contains("Error") && !zippedR.contains("not here"), "\(zippedR)")
                let zippedPSPP = try Self.run("pspp", ["midl-answers.sps"], in: folder)
                #expect(!zippedPSPP.lowercased().contains("error") && !zippedPSPP.lowercased().contains("warning"), "\(zippedPSPP)")
            }
        }
    }

    @Test("the columns the scripts and codebooks describe are the long file's, in its order; a wide file's sheet columns are those a sheet has once")
    func columnsAgree() {
        #expect(ExportColumn.long.map(\.name) == StudyExport.header)
        #expect(SPSSSyntax.columns.map(\.name) == StudyExport.header)
        #expect(SPSSSyntax.columns.map(\.perSheet) == ExportColumn.long.map(\.perSheet))
        #expect(!WideLayout.sheetColumns.map(\.name).contains("value") && WideLayout.sheetColumns.map(\.name).contains("prompt_id"))
    }

    @Test("variables are keyed by meaning: a settings change keeps every variable; a changed item gets a variable of its own, and each says which versions it holds")
    func variablesByMeaning() throws {
        let first = try QuestionnaireImport.document(from: Data(Self.questionnaire.utf8), studyId: "midl")
        // Version 2: a settings change only (as the console's settings form or `questionnaire update` makes it).
        var second = first.nextVersion()
        second.definition.completionWindowMinutes = 30
        second.definition.lateAnswerMinutes = 10
        // Version 3: the mood scale's range changes (a new encoding); every other item stays.
        let third = try Self.moodChanged(second)
        let documents = [first, second, third]

        let spss = SPSSSyntax.items(documents)
        #expect(spss.map(\.name) == ["mood_ema_alone", "mood_ema_with_whom", "mood_ema_place", "mood_ema_doing", "mood_ema_stress",
                                     "mood_ema_mood", "mood_ema_valence", "mood_ema_arousal", "mood_ema_since", "mood_ema_note",
                                     "mood_ema_v3_mood"])
        #expect(spss.first { $0.name == "mood_ema_mood" }?.versions == [1, 2])
        #expect(spss.first { $0.name == "mood_ema_v3_mood" }?.versions == [3])
        #expect(spss.first { $0.name == "mood_ema_place" }?.versions == [1, 2, 3])

        let wide = WideLayout.variables(documents)
        #expect(wide.filter { $0.label == "mood" }.map(\.versions) == [[1, 2], [3]])
        #expect(wide.filter { $0.label != "mood" }.allSatisfy { $0.versions == [1, 2, 3] })
        #expect(wide.filter { $0.label == "mood" }.map { $0.columns[0].name } == ["mood", "mood_v3"])
    }

    struct RReport {
        var rows: [String: Int] = [:]
        var unlabelled: [String] = []
        var classes: [String: String] = [:]
        var levels: [String: [String]] = [:]
        var notes: [String] = []
        var offsets: [Int] = []
        var conditional: [Int: Int] = [:]
        var times: [String: String] = [:]
    }

    /// Sources the downloaded script in R and reports, one fact a line tagged `@…` (so that no
    /// line of the script's own summaries is taken for one; texts as hex, so any byte comes back
    /// exactly): the rows of each file, each column's class and label, each
    /// factor's levels, the free text as read, the distinct offsets.
    static func rReport(in directory: URL) throws -> RReport {
        let check = #"""
            source("midl-answers.R")
            hex <- function(x) paste(as.character(charToRaw(enc2utf8(x))), collapse = "")
            for (file in names(uniti_read_files)) {
              d <- uniti_read_files[[file]]
              cat("@rows", file, nrow(d), "\n")
              for (n in names(d)) {
                label <- attr(d[[n]], "label")
                if (is.null(label) || !nzchar(label)) cat("@unlabelled", file, n, "\n")
                cat("@class", paste0(file, "/", n), class(d[[n]])[1], "\n")
                if (is.factor(d[[n]])) cat("@levels", paste0(file, "/", n), vapply(levels(d[[n]]), hex, ""), "\n")
              }
            }
            w <- wide[["mood-ema"]]
            for (note in unique(w$note)) cat("@note", hex(note), "\n")
            cat("@offsets", sort(unique(w$started_at_offset), decreasing = TRUE), "\n")
            for (d in wide) for (i in seq_len(nrow(d))) cat("@time", d$sheet[i], format(as.numeric(d$started_at[i]), scientific = FALSE), d$started_at_offset[i], "\n")
            cat("@conditional", sum(!is.na(w$with_whom)), sum(is.na(w$with_whom)), "\n")
            """#
        try Data(check.utf8).write(to: directory.appendingPathComponent("check.R"))
        let output = try run("Rscript", ["check.R"], environment: ["LANG": "C.UTF-8"], in: directory)
        #expect(!output.contains("Warning") && !output.contains("Error"), "\(output)")
        var report = RReport()
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "@rows": report.rows[words[1]] = Int(words[2])
            case "@unlabelled": report.unlabelled.append(words.dropFirst().joined(separator: "/"))
            case "@class": report.classes[words[1]] = words[2]
            case "@levels": report.levels[words[1]] = words.dropFirst(2).map { ExportRoundTripTests.text(hex: Substring($0)) }
            case "@note": report.notes.append(ExportRoundTripTests.text(hex: Substring(words[1])))
            case "@offsets": report.offsets = words.dropFirst().compactMap { Int($0) }
            case "@time": report.times[words[1]] = "\(words[2]) \(words[3])"
            case "@conditional": report.conditional = [Int(words[1])!: Int(words[2])!]
            default: break
            }
        }
        return report
    }

    struct PSPPReport {
        var output: String
        var cases = 0
        var unlabelled: [String] = []
        var levels: [String: String] = [:]
        var formats: [String: String] = [:]
        var valueLabels: [String: [String: String]] = [:]
        var times: [String: String] = [:]
    }

    /// Runs the downloaded syntax in PSPP with the dictionary shown, its tables written as CSV,
    /// then `check`, which writes `times.txt` (an id, then what is compared) and lists `cases`.
    // SPSS counts seconds from 1582-10-14, Unix from 1970-01-01: 141,428 days apart.
    static func psppReport(in directory: URL, syntax name: String = "midl-answers.sps", check: String = """
        MRSETS /DISPLAY NAME=ALL.
        COMPUTE unix = started_at - 12219379200.
        WRITE OUTFILE='times.txt' /sheet (A36) ' ' unix (F12.0) ' ' started_at_offset (F5.0).
        COMPUTE one = 1.
        AGGREGATE /OUTFILE=* /BREAK=one /cases = N.
        LIST cases.

        """) throws -> PSPPReport {
        let syntax = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) + "DISPLAY DICTIONARY.\n" + check
        try Data(syntax.utf8).write(to: directory.appendingPathComponent("check.sps"))
        let output = try run("pspp", ["-o", "check.csv", "check.sps"], in: directory)
        #expect(!output.lowercased().contains("error") && !output.lowercased().contains("warning"), "\(output)")
        let text = try String(contentsOf: directory.appendingPathComponent("check.csv"), encoding: .utf8)
        #expect(!text.lowercased().contains("error") && !text.lowercased().contains("warning:"), "\(text)")
        var report = PSPPReport(output: text)
        let rows = try ExportRoundTripTests.pythonRows(["check.csv"], in: directory)["check.csv"] ?? []
        for line in try String(contentsOf: directory.appendingPathComponent("times.txt"), encoding: .utf8).split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words.count >= 3 { report.times[words[0]] = words.dropFirst().joined(separator: " ") }
        }
        // Each table is a line "Table: <title>", its header, its rows, then an empty line. The
        // value labels name their variable by its label.
        var table = "", header: [String] = [], labelled: [String: String] = [:], current = ""
        for row in rows {
            if row.count == 1, row[0].hasPrefix("Table: ") { table = String(row[0].dropFirst(7)); header = []; continue }
            if row.allSatisfy(\.isEmpty) { continue }
            if header.isEmpty { header = row; continue }
            func cell(_ name: String) -> String? { header.firstIndex(of: name).flatMap { $0 < row.count ? row[$0] : nil } }
            switch table {
            case "Variables":
                guard let name = cell("Name") else { continue }
                if (cell("Label") ?? "").isEmpty { report.unlabelled.append(name) } else { labelled[cell("Label")!] = labelled[cell("Label")!] ?? name }
                report.levels[name] = cell("Measurement Level")
                report.formats[name] = cell("Print Format")
            case "Value Labels" where row.count >= 3:
                if !row[0].isEmpty { current = labelled[row[0]] ?? row[0] }
                report.valueLabels[current, default: [:]][row[1]] = row[2]
            case "Data List":
                if let cases = cell("cases") { report.cases = Int(cases.trimmingCharacters(in: .whitespaces)) ?? -1 }
            default: break
            }
        }
        return report
    }

    /// Runs `program` in `directory`; its output (standard output and error), or a failure
    /// naming it: a missing program fails the test, it is never skipped.
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL) throws -> String {
        guard let found = ExternalProgram.find(program, in: nil) else {
            throw TestFailure("\(program) is missing: run Scripts/bootstrap --tests (it installs r-base-core, pspp and unzip)")
        }
        let outcome = try found.run(arguments, environment: environment, in: directory)
        guard outcome.succeeded else { throw TestFailure("\(program) \(arguments.joined(separator: " ")) failed: \(outcome.output)") }
        return outcome.output
    }
}
