import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

/// Lines given up front whose prompts and answers are written into the captured output, so a
/// test reads a run as the person saw it (the page, then the prompt with what was typed).
final class EchoingInput: LineInput, @unchecked Sendable {
    private var remaining: [String]
    private let console: Console
    private(set) var prompts: [String] = []

    init(_ lines: [String], console: Console) {
        self.remaining = lines
        self.console = console
    }

    var isInteractive: Bool { false }

    func readLine(prompt: String) throws -> String? {
        prompts.append(prompt)
        let line = remaining.isEmpty ? nil : remaining.removeFirst()
        console.write(prompt + (line ?? "") + "\n")
        return line
    }

    func readSecret(prompt: String) throws -> String? { try readLine(prompt: prompt) }
}

@Suite("Questionnaire on one page", .timeLimit(.minutes(10)))
struct QuestionnairePageTests {
    /// Questions 1 noise, (2 loudness, shown when the noise is heard), place, note.
    static let definition = QuestionnaireFixtures.make([
        QuestionnaireItem(label: "h", text: "Right now", element: .headline),
        QuestionnaireItem(label: "noise", text: "Do you hear the noise now?", required: true, element: .yesNo),
        QuestionnaireItem(label: "loudness", text: "How loud is it?", required: true,
                          showIf: ItemCondition(label: "noise", equals: .yesNo(true)),
                          element: .slider(SliderRange(min: 0, max: 100, step: 10))),
        QuestionnaireItem(label: "place", text: "Where are you?", required: true, element: .singleChoice(options: [
            ChoiceOption(value: 1, text: "At home"), ChoiceOption(value: 2, text: "At work"), ChoiceOption(value: 3, text: "Outside"),
        ])),
        QuestionnaireItem(label: "t", text: "Last, if you like:", element: .text),
        QuestionnaireItem(label: "note", text: "Anything else?", element: .freeText(multiline: false, maxLength: nil)),
    ])

    /// An engine on `harness`'s database whose input is `lines`, echoed into the output.
    static func engine(_ harness: QuestionnaireHarness, lines: [String], language: Language = .english,
                       keys: (any KeyInput)? = nil) -> (QuestionnaireEngine, EchoingInput) {
        let input = EchoingInput(lines, console: harness.console)
        let services = CoreServices(dataDirectory: harness.services.dataDirectory, database: harness.database,
                                    console: harness.console, input: input, clock: harness.clock,
                                    random: SeededRandomSource(seed: 1), program: .integrated)
        return (QuestionnaireEngine(services: services, keys: keys, localizer: Localizer(language: language)), input)
    }

    @Test("the page lists every shown item in order, marks required questions and shows answers in the words chosen")
    func pageListsItems() throws {
        let harness = try QuestionnaireHarness()
        let (engine, input) = Self.engine(harness, lines: ["y", "40", "2", "quiet", "save"])
        let result = try engine.answer(Self.definition, owner: "tys", asPage: true)
        #expect(result.sheet.values == ["noise": .yesNo(true), "loudness": .number(40), "place": .integer(2), "note": .text("quiet")])
        let out = harness.output.out
        // Before any answer the loudness question is hidden, and nothing has a value.
        #expect(out.contains("""

            RIGHT NOW
              1.  Do you hear the noise now? *  —
              2.  Where are you? *              —
              Last, if you like:
              3.  Anything else?                —
            * needs an answer before the sheet can be saved

            """))
        // After the walk, the page again, with the answers as the person chose them.
        #expect(out.contains("""
              1.  Do you hear the noise now? *  yes
              2.  How loud is it? *             40
              3.  Where are you? *              At work
              Last, if you like:
              4.  Anything else?                quiet
            """))
        #expect(input.prompts.last == "Type save, a number (1–4) to answer or change a question, or cancel: ")
        #expect(try harness.count("core_questionnaire_drafts") == 0)
    }

    @Test("save with a required question unanswered is refused naming it; answering it by number then saves")
    func saveRefusedUntilRequiredAnswered() throws {
        let harness = try QuestionnaireHarness()
        // "" (Enter) leaves the required place for later; "-" leaves the optional note empty.
        let (engine, input) = Self.engine(harness, lines: ["y", "40", "", "-", "save", "store", "3", "1", "save"])
        let result = try engine.answer(Self.definition, owner: "tys", asPage: true)
        #expect(result.sheet.values == ["noise": .yesNo(true), "loudness": .number(40), "place": .integer(1)])
        #expect(input.prompts.contains("Where are you? * (1/2/3, - for later) "))
        let out = harness.output.out
        #expect(out.contains("Not saved yet, these still need an answer: 3 “Where are you?”. Type a question's number to answer it.\n"))
        #expect(out.contains("Type save to save the answers, a question's number from 1 to 4 to answer or change it, or cancel"))
        #expect(try harness.count("core_questionnaire_drafts") == 0)
    }

    @Test("cancel or the end of input at the prompt keeps the draft, and a new start shows the page with the kept answers",
          arguments: [["cancel"], []])
    func cancelKeepsDraft(ending: [String]) throws {
        let harness = try QuestionnaireHarness()
        let (first, _) = Self.engine(harness, lines: ["y", "40", "-", "-"] + ending)
        #expect {
            try first.answer(Self.definition, owner: "tys", asPage: true)
        } throws: { error in
            (error as? PromptCancelled)?.keptAnswers == true
        }
        #expect(harness.output.err.contains("so far are kept"))
        let draft = try #require(try harness.drafts.draft(owner: "tys", questionnaireID: "test"))
        #expect(draft.sheet.values == ["noise": .yesNo(true), "loudness": .number(40)])

        // The place was left for later, so the first walk of the new start asks it again; the
        // note was left empty on purpose and is not asked.
        let (second, input) = Self.engine(harness, lines: ["y", "3", "save"])
        let result = try second.answer(Self.definition, owner: "tys", asPage: true)
        #expect(input.prompts[0].contains("Continue where you stopped?"))
        #expect(harness.output.out.contains("""
              1.  Do you hear the noise now? *  yes
              2.  How loud is it? *             40
              3.  Where are you? *              —
            """))
        #expect(!input.prompts.contains { $0.hasPrefix("Anything else?") })
        #expect(result.sheet.id == draft.sheet.id)
        #expect(result.sheet.values == ["noise": .yesNo(true), "loudness": .number(40), "place": .integer(3)])
        #expect(try harness.count("core_questionnaire_drafts") == 0)
    }

    @Test("a number changes its answer; an answer that hides a question drops it, one that shows it again asks it")
    func changeByNumber() throws {
        let harness = try QuestionnaireHarness()
        let (engine, input) = Self.engine(harness, lines: [
            "y", "40", "1", "-",   // the walk
            "1", "n",              // no noise: the loudness question goes, with its answer
            "2", "3",              // the place, now number 2, changes
            "1", "y", "70",        // noise again: loudness is shown and asked afresh
            "save",
        ])
        let result = try engine.answer(Self.definition, owner: "tys", asPage: true)
        #expect(result.sheet.values == ["noise": .yesNo(true), "loudness": .number(70), "place": .integer(3)])
        let out = harness.output.out
        #expect(out.contains("Now: yes\n"))
        #expect(out.contains("Now: At home\n"))
        #expect(out.contains("""
              1.  Do you hear the noise now? *  no
              2.  Where are you? *              Outside
            """))
        #expect(input.prompts.contains("Type save, a number (1–3) to answer or change a question, or cancel: "))
        #expect(input.prompts.filter { $0.hasPrefix("How loud is it?") }.count == 2)
    }

    @Test("one-at-a-time definitions, and any definition without asPage, are asked item by item as before")
    func itemByItemUnchanged() throws {
        let paged = try QuestionnaireHarness(lines: QuestionnaireLineProtocolTests.validLines)
        let result = try paged.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys", asPage: true)
        #expect(result.sheet.values.count == 9)
        #expect(paged.input.prompts.count == 9)
        #expect(paged.input.prompts[0] == "1/7 Do you hear the noise now? * (y/n) ")
        #expect(!paged.output.out.contains("* needs an answer"))

        let plain = try QuestionnaireHarness(lines: ["y", "-", "40", "", "1", "-"])
        let sheet = try plain.engine().answer(Self.definition, owner: "tys").sheet
        #expect(sheet.values == ["noise": .yesNo(true), "loudness": .number(40), "place": .integer(1)])
        #expect(plain.input.prompts == [
            "Do you hear the noise now? * (y/n) ", "How loud is it? * (0–100) ", "How loud is it? * (0–100) ",
            "Where are you? * (1/2/3) ", "Where are you? * (1/2/3) ", "Anything else? (text, - to skip) ",
        ])
        #expect(plain.output.out.contains("This question needs an answer."))
        #expect(!plain.output.out.contains("1.  Do you hear"))
    }

    @Test("a German page takes the German word for save")
    func germanSave() throws {
        let harness = try QuestionnaireHarness()
        let (engine, input) = Self.engine(harness, lines: ["j", "40", "-", "-", "speichern", "3", "2", "speichern"],
                                          language: .german)
        let result = try engine.answer(Self.definition, owner: "tys", asPage: true)
        #expect(result.sheet.values["place"] == .integer(2))
        #expect(input.prompts.last == "Geben Sie speichern ein, eine Nummer (1–4), um eine Frage zu beantworten oder zu ändern, oder abbrechen: ")
        let out = harness.output.out
        #expect(out.contains("* braucht eine Antwort, bevor der Bogen gespeichert werden kann"))
        #expect(out.contains("Noch nicht gespeichert, diese Fragen brauchen noch eine Antwort: 3 „Where are you?“."))
        #expect(out.contains("  1.  Do you hear the noise now? *  ja\n"))
    }

    @Test("the prompt's words come from every string table, whatever the language shown")
    func promptWords() {
        #expect(QuestionnairePageWord.save.words.isSuperset(of: ["save", "speichern", "guardar", "opslaan", "αποθήκευση", "αποθηκευση"]))
        #expect(QuestionnairePageWord.cancel.words.isSuperset(of: ["cancel", "abbrechen", "cancelar", "annuleren", "ακύρωση"]))
        #expect(QuestionnairePageWord.save.words.isDisjoint(with: QuestionnairePageWord.cancel.words))
    }

    @Test("widgets on a page: a required slider is left for later with -, and opened by number it starts without a value")
    func widgetsOnPage() throws {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "noise", text: "Noise now?", required: true, element: .yesNo),
            QuestionnaireItem(label: "level", text: "How loud?", required: true,
                              element: .slider(SliderRange(min: 0, max: 100, step: 10))),
        ])
        let keys = ScriptedKeys([
            .character("1"), .enter,                 // yes, by its number
            .character("-"),                         // the slider is left for later
            .right, .right, .right, .enter,          // opened by number: 50 → 70
            .right, .enter,                          // opened again: the thumb starts in the middle, not at 70
        ])
        let harness = try QuestionnaireHarness()
        let (engine, _) = Self.engine(harness, lines: ["save", "2", "2", "save"], keys: keys)
        let result = try engine.answer(definition, owner: "tyh", asPage: true)
        #expect(result.sheet.values == ["noise": .yesNo(true), "level": .number(50)])
        #expect(keys.unread.isEmpty)
        let out = harness.output.out
        #expect(out.contains("- leaves it for later; it needs an answer before saving"))
        #expect(out.contains("Not saved yet, these still need an answer: 2 “How loud?”."))
        #expect(out.contains("Now: 70\n"))
    }
}
