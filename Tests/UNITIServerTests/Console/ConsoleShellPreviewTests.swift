import Foundation
import HummingbirdTesting
import Synchronization
import Testing
import UNITICore
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// The console's questionnaire preview shows, beside the portal's form, the questionnaire as the
/// `uniti` shell prints it (issue 31). The lines expected here are not written down: they are
/// what the shell's own line runner prints when it walks the same definition, so a change to
/// either side that makes the preview differ from the shell fails here.
@Suite("Console: the shell's text beside the preview", .timeLimit(.minutes(5)))
struct ConsoleShellPreviewTests {
    /// One of each kind of question a participant meets in the shell, one at a time, with a
    /// headline and display text between them, in English and German.
    static let definition = """
    {"id": "every-kind", "version": 1, "title": {"en": "Every kind", "de": "Jede Art"}, "kind": "oneTime",
     "presentation": "oneAtATime",
     "items": [
       {"type": "headline", "label": "start", "text": {"en": "Right now", "de": "Gerade jetzt"}},
       {"type": "text", "label": "hello", "text": {"en": "A few questions.", "de": "Ein paar Fragen."}},
       {"type": "scale", "label": "loudness", "required": true, "text": {"en": "How loud?", "de": "Wie laut?"}, "min": 0, "max": 7,
        "minLabel": {"en": "silent", "de": "still"}, "maxLabel": {"en": "very loud", "de": "sehr laut"}},
       {"type": "samValence", "label": "valence", "required": true, "text": {"en": "How do you feel?", "de": "Wie fühlen Sie sich?"}},
       {"type": "samArousal", "label": "arousal", "points": 5, "text": {"en": "How calm are you?", "de": "Wie ruhig sind Sie?"}},
       {"type": "singleChoice", "label": "place", "required": true, "text": {"en": "Where are you?", "de": "Wo sind Sie?"},
        "options": [{"value": 0, "text": {"en": "at home", "de": "zu Hause"}}, {"value": 1, "text": {"en": "outside", "de": "draußen"}}]},
       {"type": "multipleChoice", "label": "sounds", "text": {"en": "What do you hear?", "de": "Was hören Sie?"}, "maxSelected": 2,
        "options": [{"value": 1, "text": {"en": "voices", "de": "Stimmen"}}, {"value": 2, "text": {"en": "traffic", "de": "Verkehr"}},
                    {"value": 3, "text": {"en": "music", "de": "Musik"}}]},
       {"type": "yesNo", "label": "aid", "required": true, "text": {"en": "Hearing aid on?", "de": "Hörgerät an?"}},
       {"type": "slider", "label": "strain", "text": {"en": "How straining?", "de": "Wie anstrengend?"}, "min": 0, "max": 100, "step": 5,
        "minLabel": {"en": "not at all", "de": "gar nicht"}, "maxLabel": {"en": "very", "de": "sehr"}, "unit": "%"},
       {"type": "freeText", "label": "note", "text": {"en": "Anything else?", "de": "Sonst noch etwas?"}, "maxLength": 200},
       {"type": "date", "label": "since", "text": {"en": "Since when?", "de": "Seit wann?"}}
     ]}
    """

    @Test("the preview holds, in English and in German, exactly the lines the shell's line runner prints for a definition with every kind of question, one at a time")
    func previewHoldsTheShellsLines() async throws {
        let definition = try JSONDecoder().decode(QuestionnaireDefinition.self, from: Data(Self.definition.utf8))
        for (language, shown) in try await Self.previewLines(of: Self.definition, id: "every-kind") {
            // The required questions answered, the others passed with `-`, as a participant may.
            let printed = try Self.linesPrinted(definition, language: language, answers: ["3", "5", "-", "0", "-", "y", "-", "-", "-"])
            #expect(shown == printed, "\(language)")
            #expect(printed.contains { $0.hasPrefix("  ╭─────╮") }, "the SAM faces are among the lines")
            #expect(printed.contains { $0.hasPrefix("3/9 ") }, "with the progress of one at a time")
        }
    }

    /// A study questionnaire on one page, answered as a page in the shell.
    static let pageDefinition = """
    {"id": "one-page", "version": 1, "title": {"en": "One page", "de": "Eine Seite"}, "kind": "oneTime",
     "presentation": "allOnOnePage",
     "items": [
       {"type": "headline", "label": "start", "text": {"en": "Today", "de": "Heute"}},
       {"type": "text", "label": "hello", "text": {"en": "Three questions.", "de": "Drei Fragen."}},
       {"type": "scale", "label": "loudness", "required": true, "text": {"en": "How loud?", "de": "Wie laut?"}, "min": 0, "max": 7},
       {"type": "singleChoice", "label": "place", "text": {"en": "Where are you?", "de": "Wo sind Sie?"},
        "options": [{"value": 0, "text": {"en": "at home", "de": "zu Hause"}}, {"value": 1, "text": {"en": "outside", "de": "draußen"}}]},
       {"type": "yesNo", "label": "aid", "required": true, "text": {"en": "Hearing aid on?", "de": "Hörgerät an?"}}
     ]}
    """

    @Test("a questionnaire on one page: the preview holds the page, each question's lines and the page's prompt, as the shell prints them when it is answered as a page")
    func previewOfAPage() async throws {
        let definition = try JSONDecoder().decode(QuestionnaireDefinition.self, from: Data(Self.pageDefinition.utf8))
        for (language, shown) in try await Self.previewLines(of: Self.pageDefinition, id: "one-page") {
            // Required questions left for later with Enter, the other passed with `-`, then
            // `cancel` at the page's prompt: the shell shows the page again (unchanged, as
            // nothing was answered) before that prompt, which the preview does not repeat.
            let printed = try Self.linesPrinted(definition, language: language, answers: ["", "-", "", "cancel"], asPage: true)
            // The page ends where the first question's prompt (it has no details) begins.
            let pageLength = shown.firstIndex { $0.hasPrefix("How loud?") || $0.hasPrefix("Wie laut?") } ?? 0
            #expect(pageLength > 3, "the preview starts with the page")
            #expect(printed == Array(shown.dropLast()) + Array(shown.prefix(pageLength)) + [shown.last ?? ""], "\(language)")
            #expect(shown.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("1.") && $0.contains(language == .german ? "Wie laut? *" : "How loud? *") },
                    "the page numbers its questions")
        }
    }

    // MARK: Helpers

    /// The lines of the preview's `<pre>` for `definition` (JSON, questionnaire `id`), uploaded
    /// by an owner in the console, in English and in German.
    static func previewLines(of definition: String, id: String) async throws -> [(Language, [String])] {
        let fixture = ConsoleFixture(server: try TestServer())
        let lines = Mutex<[(Language, [String])]>([])
        try await fixture.run { client in
            let browser = try await Self.owner(of: "delta", fixture, client)
            let uploaded = try await browser.submit("/console/studies/delta/questionnaires", to: "/console/studies/delta/questionnaires",
                                                    ["definition": definition])
            #expect(uploaded.status == .seeOther, "\(uploaded.text)")
            for language in [Language.english, .german] {
                browser.cookies[PortalText.languageCookie] = language.rawValue
                let page = try await browser.get("/console/studies/delta/questionnaires/\(id)/preview")
                #expect(page.status == .ok)
                let shown = try #require(Self.shellText(in: page.text), "the page has the shell's <pre>")
                lines.withLock { $0.append((language, shown)) }
            }
        }
        return lines.withLock { lines in
            #expect(lines.count == 2)
            return lines
        }
    }

    /// A signed-in owner of a fresh study `id`.
    static func owner(of id: String, _ fixture: ConsoleFixture, _ client: any TestClientProtocol) async throws -> PortalBrowser {
        try await fixture.study(id)
        let owner = try await fixture.enrolledStaff("owner-\(id)")
        try await fixture.role(.owner, owner, id)
        let browser = PortalBrowser(client)
        try await fixture.signIn(browser, owner)
        return browser
    }

    /// The lines of the page's `<pre id="shell-text">`, unescaped as a browser shows them.
    static func shellText(in html: String) -> [String]? {
        guard let open = html.range(of: #"<pre id="shell-text" tabindex="0">"#),
              let close = html.range(of: "</pre>", range: open.upperBound..<html.endIndex) else { return nil }
        let escaped = String(html[open.upperBound..<close.lowerBound])
        var text = escaped
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.components(separatedBy: "\n")
    }

    /// What the shell's line runner prints walking `definition` in `language` with these typed
    /// answers: every console line, and every prompt as the line it starts (a piped session
    /// prints the prompt and the answer follows it). `asPage` answers it as a page, the last
    /// answer cancelling at the page's prompt.
    static func linesPrinted(_ definition: QuestionnaireDefinition, language: Language, answers: [String], asPage: Bool = false) throws -> [String] {
        let (console, output) = Console.capturing()
        let input = PromptsOnConsole(console: console, answers: answers)
        let runner = LineQuestionnaireRunner(console: console, input: input, localizer: Localizer(language: language))
        let session = QuestionnaireSession(definition: definition, clock: FixedClock(TestTime.now),
                                           language: language.rawValue)
        if asPage {
            #expect(throws: PromptCancelled.self) { try runner.runAsPage(session) { _ in } }
        } else {
            try runner.run(session) { _ in }
        }
        #expect(input.remaining.isEmpty, "every answer was asked for")
        var lines = output.out.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Typed answers for the line runner that put each prompt on the console as its own line, so
/// the transcript holds what a participant reads in the order they read it.
private final class PromptsOnConsole: LineInput, @unchecked Sendable {
    let console: Console
    private(set) var remaining: [String]

    init(console: Console, answers: [String]) {
        self.console = console
        self.remaining = answers
    }

    var isInteractive: Bool { false }

    func readLine(prompt: String) throws -> String? {
        console.line(prompt)
        return remaining.isEmpty ? nil : remaining.removeFirst()
    }
}
