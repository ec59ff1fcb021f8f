import Foundation
import Testing
import UNITITesting

/// Issue 49 with the real `uniti`: the shell in Spanish, Greek and Dutch. Its help, a check-in
/// answered with the language's own word for yes, an event whose title is typed at a real
/// terminal in the language's letters (the last one typed twice and taken back with Backspace),
/// the health record's calendar with the month and weekdays in the language, the adherence
/// report, a refusal of the shell's own and one of a real server, in the language. What is stored is what was typed, byte for byte, and the same whatever the
/// language (a yes is 0). The expected words are read from the language's string tables, so
/// the test follows the translation when its wording changes.
@Suite("The shell in the trial's languages", .serialized, .timeLimit(.minutes(10)))
struct LanguageShellTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var code: String
        /// The language's word for yes, as a participant types it.
        var yes: String
        /// An event title in the language's letters; `last` is typed twice, then Backspace.
        var title: String
        var last: String
        var testDescription: String { code }
    }

    static let cases = [
        Case(code: "es", yes: "sí", title: "Otorrino en Málaga: año nuevo, señal", last: "ñ"),
        Case(code: "el", yes: "ναι", title: "Ωτορινολαρυγγολόγος στην Αθήνα, ακοόγραμμα", last: "ά"),
        Case(code: "nl", yes: "ja", title: "Oorarts in Leuven: één afspraak, geëvalueerd", last: "ë"),
    ]

    /// A text of the language's string tables (`Localization/Strings/<code>/*.json`).
    static func text(_ code: String, _ key: String, _ values: [String: String] = [:]) throws -> String {
        let folder = Repository.root.appendingPathComponent("Localization/Strings/\(code)")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
            let table = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: folder.appendingPathComponent(file)))
            if var text = table[key] {
                for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
                return text
            }
        }
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(code) has no text \(key)"])
    }

    @Test("help, a check-in with the language's yes, a title typed in its letters, the calendar, adherence and refusals of the shell and the server, in each language; stored as typed", .enabled(if: Builds.isIntegrated), arguments: cases)
    func shellInLanguage(_ language: Case) throws {
        let data = TemporaryDataDirectory()
        try UnicodeTypingTests.answerOneTimeQuestionnaires(data)
        let base = ["--data-dir", data.path, "--lang", language.code]

        let help = try Program.run("uniti", base + ["-c", "help"])
        let commands = try Self.text(language.code, "host.help.commands")
        #expect(help.status == 0 && help.out.contains(commands), "\(help.out)")

        // The momentary check-in: yes in the language's word, stored as every yes is (0).
        let filled = try Program.run("uniti", base + ["-c", "tyt fill"], stdin: "\(language.yes)\n35\n60\n4\n2\n50\n80\n25\n")
        #expect(filled.status == 0, "\(filled.out) \(filled.err)")
        let stored = try SQLiteShell.query(data.path + "/uniti.sqlite", "SELECT perceived, loudness, distress FROM tyt_results")
        #expect(stored == ["0|35|60"], "\(stored)")

        // Typed at a real terminal, prompts in the language.
        let terminal = try Terminal("uniti", base, environment: ["LANG": "C.UTF-8", "LC_ALL": "", "LC_CTYPE": ""])
        #expect(terminal.waitFor("uniti> "))
        terminal.type("tn event add\r")
        #expect(terminal.waitFor(try Self.text(language.code, "tn.event.prompt.title")), "\(terminal.output)")
        terminal.type(language.title + language.last + "\u{7F}\r")
        #expect(terminal.waitFor("\r\n", after: terminal.output.range(of: language.title)?.upperBound), "\(terminal.output)")
        terminal.type("2026-12-07 09:30\r")
        #expect(terminal.waitFor(try Self.text(language.code, "tn.event.prompt.type")), "\(terminal.output)")
        terminal.type("4\r")
        #expect(terminal.waitFor(try Self.text(language.code, "tn.event.prompt.description")), "\(terminal.output)")
        terminal.type("\r")
        #expect(terminal.waitForPrompt("uniti> ", after: language.title), "\(terminal.output)")
        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)
        let titles = try SQLiteShell.query(data.path + "/uniti.sqlite", "SELECT title FROM tn_events")
        #expect(titles.map { Array($0.utf8) } == [Array(language.title.utf8)], "\(titles)")

        // The calendar: the month and the weekdays in the language, Monday first.
        let calendar = try Program.run("uniti", base + ["-c", "tn calendar 2026-12"])
        let header = calendar.out.split(separator: "\n").map(String.init)
        let month = try Self.text(language.code, "tn.calendar.title", ["month": try Self.text(language.code, "tn.calendar.month.12"), "year": "2026"])
        #expect(header.first == month, "\(calendar.out)")
        let weekdays = try (1...7).map { try Self.text(language.code, "tn.calendar.weekday.\($0)") }
        #expect(header.count > 1 && header[1].split(separator: " ").map(String.init) == weekdays, "\(calendar.out)")

        // A refusal, in one line in the language.
        let unknown = try Program.run("uniti", base + ["-c", "frobnicate"])
        let refusal = try Self.text(language.code, "host.error.unknownCommand", ["command": "frobnicate"])
        #expect(unknown.status != 0 && (unknown.out + unknown.err).contains(refusal), "\(unknown.out) \(unknown.err)")

        // The adherence report, with nothing prompted yet, says so in the language.
        let adherence = try Program.run("uniti", base + ["-c", "adherence"])
        let none = try Self.text(language.code, "adherence.none")
        #expect(adherence.status == 0 && adherence.out.contains(none), "\(adherence.out)")

        // A real server's refusal (its stable code) is worded from the language's table.
        let server = try StudyServer()
        let login = try Program.run("uniti", base + ["--server", server.url, "-c", "login nobody"], stdin: "not the password\n")
        let refused = try Self.text(language.code, "core.api.error.invalid_credentials")
        #expect(login.status != 0 && (login.out + login.err).contains(refused), "\(login.out) \(login.err)")
    }

    /// A Track Your Stress page with a slider (steps of a half) and a free-text question, in a study
    /// written in Greek and English: the slider's question is in all five languages, the free-text
    /// one in Greek and English only, so a Spanish or Dutch reader reads it in Greek, the study's
    /// first language (issue 49).
    static let stressPage = """
        {"id": "kyma-page", "version": 1, "title": {"en": "Today", "de": "Heute", "es": "Hoy", "el": "Σήμερα", "nl": "Vandaag"},
         "kind": "oneTime", "presentation": "allOnOnePage",
         "items": [
           {"type": "slider", "label": "loudness", "required": true, "min": 0, "max": 10, "step": 0.5,
            "text": {"en": "How loud is the sound now?", "de": "Wie laut ist das Geräusch jetzt?", "es": "¿Qué tan fuerte es el sonido ahora?",
                     "el": "Πόσο δυνατός είναι ο ήχος τώρα;", "nl": "Hoe luid is het geluid nu?"}},
           {"type": "freeText", "label": "note", "text": {"en": "What did you hear?", "el": "Τι ακούσατε;"}, "maxLength": 200}
         ]}
        """

    @Test("a `tys fill` page at a real terminal in each language: a slider given a decimal comma and free text typed in the language's letters; a text missing in the language reads in the study's first language; the server stores what was typed", .enabled(if: Builds.isIntegrated), arguments: cases)
    func stressPageInLanguage(_ language: Case) throws {
        let server = try StudyServer()
        let files = TemporaryDataDirectory()
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: true)
        let file = files.path + "/kyma-page.json"
        try Self.stressPage.write(toFile: file, atomically: true, encoding: .utf8)
        let created = try server.coordinator(["study", "create", "kyma", "--title", #"{"en":"Waves","el":"Κύματα"}"#, "--access", "public",
                                              "--modules", "tys", "--running", "--languages", "el,en"])
        #expect(created.status == 0, "\(created.err)")
        #expect(try server.coordinator(["questionnaire", "import", file, "--study", "kyma", "--module", "tys"]).status == 0)
        // What the team is told: readers of Greek read the free-text question in Greek, readers of English in English.
        let languages = try server.coordinator(["study", "languages", "kyma"])
        #expect(languages.out.contains("Study kyma declares el, en; texts fall back to el, then en."), "\(languages.out)")
        #expect(languages.out.contains("Every text is in every language checked (el, en)."), "\(languages.out)")

        let data = TemporaryDataDirectory()
        let base = ["--data-dir", data.path, "--server", server.url, "--lang", language.code]
        let name = "p\(language.code)"
        let register = try Program.run("uniti", base + ["-c", "register"],
                                       stdin: "\(name)\n\(name)@example.org\n\(name)@example.org\npassword-\(name)\npassword-\(name)\n")
        #expect(register.status == 0, "\(register.out) \(register.err)")
        let code = try #require(try server.mailedCode(to: "\(name)@example.org"))
        #expect(try Program.run("uniti", base + ["-c", "activate \(code)"]).status == 0)
        #expect(try Program.run("uniti", base + ["-c", "login \(name)"], stdin: "password-\(name)\n").status == 0)
        let joined = try Program.run("uniti", base + ["-c", "study join kyma"])
        #expect(joined.status == 0 && joined.out.contains("Κύματα"), "the study's title in Greek: \(joined.out) \(joined.err)")
        #expect(try Program.run("uniti", base + ["-c", "sync"]).status == 0)

        let terminal = try Terminal("uniti", base, environment: ["LANG": "C.UTF-8", "LC_ALL": "", "LC_CTYPE": ""])
        #expect(terminal.waitFor("uniti> "))
        terminal.type("tys fill kyma-page\r")
        let slider = language.code == "es" ? "¿Qué tan fuerte es el sonido ahora?" : language.code == "el" ? "Πόσο δυνατός είναι ο ήχος τώρα;" : "Hoe luid is het geluid nu?"
        #expect(terminal.waitFor(slider), "\(terminal.output)")
        terminal.type("6,5\r")
        // Asked on the line editor after the slider (the page above lists it too).
        #expect(terminal.waitFor("Τι ακούσατε; ("), "the free-text question in Greek: \(terminal.output)")
        #expect(!terminal.output.contains("What did you hear?"))
        terminal.type(language.title + language.last + "\u{7F}\r")
        // A word's table entry lists its spellings (`αποθήκευση|αποθηκευση`); the first is shown.
        func word(_ key: String) throws -> String { String(try Self.text(language.code, key).split(separator: "|")[0]) }
        let save = try word("questionnaire.page.words.save")
        let prompt = try Self.text(language.code, "questionnaire.page.prompt", ["save": save, "count": "2",
                                                                               "cancel": try word("questionnaire.page.words.cancel")])
        #expect(terminal.waitFor(prompt, after: terminal.output.range(of: language.title)?.upperBound), "\(terminal.output)")
        terminal.type(save + "\r")
        #expect(terminal.waitForPrompt("uniti> ", after: prompt), "\(terminal.output)")
        terminal.type("\u{04}")
        #expect(terminal.waitForExit() == 0)

        // Sent and stored as typed, whatever the language: 6.5 and the title's bytes; the sheet names its language.
        #expect(try Program.run("uniti", base + ["-c", "sync"]).status == 0)
        let numbers = try server.query("SELECT label, number FROM answers ORDER BY position")
        #expect(numbers.first == "loudness|6.5", "\(numbers)")
        let note = try server.query("SELECT json_extract(sheet, '$.answers.note.value'), json_extract(sheet, '$.language') FROM answer_sheets WHERE questionnaire_id = 'kyma-page'")
        #expect(note.map { Array($0.utf8) } == [Array((language.title + "|" + language.code).utf8)], "\(note)")
    }
}
