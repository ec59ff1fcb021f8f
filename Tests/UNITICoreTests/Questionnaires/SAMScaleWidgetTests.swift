import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

@Suite("SAM pictograms and their widget", .timeLimit(.minutes(10)))
struct SAMScaleWidgetTests {
    static let valenceFigures = [
        "  ╭─────╮ ╭─────╮ ╭─────╮ ╭─────╮ ╭─────╮",
        "  │ ╥ ╥ │ │ - - │ │ o o │ │ ^ ^ │ │ ^ ^ │",
        "  │╱───╲│ │ ╭─╮ │ │ ─── │ │ ╰─╯ │ │╲___╱│",
        "  ╰─────╯ ╰─────╯ ╰─────╯ ╰─────╯ ╰─────╯",
        "     1       2       3       4       5",
    ]
    static let arousalFigures = [
        #"      zZ                   '   '  \ \|/ /"#,
        #"     o       o     ' o '  - \o/ - = \o/ ="#,
        #"    /|\     /|\     -|-      |    -  |  -"#,
        #"    / \     / \     / \     / \    '/ \'"#,
        "     1       2       3       4       5",
    ]
    static let underThree = "                  ^^^^^^^"

    func widget(_ element: QuestionnaireElement, required: Bool = true, caption: String = "",
                colors: Bool = false) -> SAMScaleWidget {
        SAMScaleWidget(element: element, required: required, caption: caption, colors: colors)
    }

    @Test("a 5-point valence row shows five faces with their numbers and a marker line under the chosen one")
    func valenceRow() {
        var sam = widget(.samValence(points: 5), caption: "very unpleasant ← → very pleasant")
        _ = sam.handle(.character("3"))
        #expect(sam.render(width: 80) == Self.valenceFigures + [Self.underThree, "  very unpleasant ← → very pleasant"])
    }

    @Test("a 5-point arousal row shows five bodies from dozing to very excited")
    func arousalRow() {
        var sam = widget(.samArousal(points: 5))
        _ = sam.handle(.character("3"))
        #expect(sam.render(width: 80) == Self.arousalFigures + [Self.underThree])
    }

    @Test("with nothing chosen the marker line is empty, so the row keeps its height")
    func nothingChosen() {
        #expect(widget(.samValence(points: 5)).render(width: 80) == Self.valenceFigures + [""])
        #expect(widget(.samArousal(points: 5)).render(width: 80) == Self.arousalFigures + [""])
    }

    @Test("every figure is four rows of seven one-column characters, for 5 and 9 points")
    func figureSizes() {
        for element in [QuestionnaireElement.samValence(points: 5), .samValence(points: 9),
                        .samArousal(points: 5), .samArousal(points: 9)] {
            let figures = SAMPictograms.figures(for: element)
            #expect(figures.count == (element == .samValence(points: 5) || element == .samArousal(points: 5) ? 5 : 9))
            for figure in figures {
                #expect(figure.count == SAMPictograms.figureHeight)
                for row in figure {
                    #expect(row.displayWidth == SAMPictograms.figureWidth, "\(element): \(row)")
                    #expect(row.count == SAMPictograms.figureWidth, "\(element): \(row)")
                }
            }
            #expect(Set(figures).count == figures.count, "every point has its own figure")
            // The widest row of figures fits an 80-column terminal.
            #expect(widget(element).render(width: 80).allSatisfy { $0.displayWidth <= 80 })
        }
        // 5 points are every other figure of 9, so the in-between figures sit at the even points.
        let nine = SAMPictograms.figures(for: .samValence(points: 9))
        #expect(SAMPictograms.figures(for: .samValence(points: 5)) == [nine[0], nine[2], nine[4], nine[6], nine[8]])
    }

    @Test("the marker follows arrows, Home, End and digits")
    func markerMoves() {
        var sam = widget(.samValence(points: 5))
        func marker() -> String { sam.render(width: 80)[5] }
        _ = sam.handle(.right)  // the first press starts in the middle
        #expect(sam.selected == 2)
        #expect(marker() == Self.underThree)
        _ = sam.handle(.right)
        #expect(marker() == "  " + String(repeating: " ", count: 24) + "^^^^^^^")
        _ = sam.handle(.home)
        #expect(marker() == "  ^^^^^^^")
        _ = sam.handle(.left)  // stays at the end
        #expect(marker() == "  ^^^^^^^")
        _ = sam.handle(.character("5"))
        #expect(marker() == "  " + String(repeating: " ", count: 32) + "^^^^^^^")
        _ = sam.handle(.character("7"))  // not a point of this scale
        #expect(sam.selected == 4)
        _ = sam.handle(.backspace)
        #expect(marker() == "")
    }

    @Test("on a colour terminal the chosen figure and its number are in reverse video, and move with the keys")
    func reverseVideo() {
        var sam = widget(.samArousal(points: 5), colors: true)
        #expect(sam.render(width: 80) == Self.arousalFigures, "no highlight and no marker line before a choice")
        _ = sam.handle(.character("2"))
        let lines = sam.render(width: 80)
        #expect(lines.count == 5)
        #expect(lines[4] == "     1    \u{1B}[7m   2   \u{1B}[0m    3       4       5")
        #expect(lines[1] == "     o    \u{1B}[7m   o   \u{1B}[0m  ' o '  - \\o/ - = \\o/ =")
        #expect(lines.allSatisfy { $0.components(separatedBy: "\u{1B}[7m").count == 2 })
        _ = sam.handle(.right)
        #expect(sam.render(width: 80)[4] == "     1       2    \u{1B}[7m   3   \u{1B}[0m    4       5")
    }

    @Test("Enter without a chosen figure does nothing on a required item and confirms once one is chosen")
    func enterNeedsChoice() {
        var sam = widget(.samValence(points: 5))
        let before = sam.render(width: 80)
        #expect(sam.handle(.enter) == .needsAnswer)
        #expect(sam.selected == nil)
        #expect(sam.render(width: 80) == before)
        _ = sam.handle(.left)
        #expect(sam.handle(.enter) == .submit(.integer(3)))
        var optional = widget(.samArousal(points: 5), required: false)
        #expect(optional.handle(.enter) == .submit(nil))  // an optional item is left empty, as a slider
    }

    @Test("a terminal too narrow for the figures falls back to the one-line pictograms")
    func narrowTerminal() {
        var sam = widget(.samValence(points: 9))
        _ = sam.handle(.character("8"))
        let lines = sam.render(width: 60)
        #expect(lines.first?.contains("[(^o^)]") == true)
        #expect(sam.handle(.enter) == .submit(.integer(8)))
    }

    @Test("the line protocol prints the figures with their numbers once and takes 1–5, refusing 0 and 6")
    func lineProtocol() throws {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "mood", text: "How do you feel?", required: true, element: .samValence(points: 5)),
        ], presentation: .oneAtATime)
        let harness = try QuestionnaireHarness(lines: ["0", "6", "3"])
        let result = try harness.engine().answer(definition, owner: "tyh")
        #expect(result.sheet.values == ["mood": .integer(3)])
        let out = harness.output.out
        #expect(out.contains((Self.valenceFigures + ["  1 = very unpleasant, 5 = very pleasant"]).joined(separator: "\n") + "\n"))
        #expect(out.components(separatedBy: Self.valenceFigures[2]).count - 1 == 1, "the figures are printed once")
        #expect(out.components(separatedBy: "Type a whole number from 1 to 5. An answer is needed.\n").count - 1 == 2)
        #expect(harness.input.prompts.count == 3)
        #expect(harness.input.prompts.allSatisfy { $0.contains("How do you feel? *") && $0.contains("(1–5)") })
    }

    @Test("the terminal front end shows the figures and the SAM keys, and answers with a digit")
    func terminalRunner() throws {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "arousal", text: "How excited?", required: true, element: .samArousal(points: 5)),
        ], presentation: .oneAtATime)
        let keys = ScriptedKeys([.enter, .right, .right, .enter])
        let harness = try QuestionnaireHarness()
        let result = try harness.engine(keys: keys).answer(definition, owner: "tyh")
        #expect(result.sheet.values == ["arousal": .integer(4)])
        let out = harness.output.out
        #expect(out.contains("←/→ or a number chooses a figure"))
        #expect(out.contains(Self.arousalFigures[3]))
        #expect(out.contains("This question needs an answer."))
        #expect(out.contains("  " + String(repeating: " ", count: 24) + "^^^^^^^"))
    }

    @Test("the SAM demo definition validates, and its first question is the 5-point valence row")
    func demoDefinition() throws {
        // Fixtures/Questionnaires/sam-demo.json: `uniti -c "questionnaire preview FILE"` in a terminal
        // shows these widgets (for the module README).
        let path = QuestionnaireFixtures.path("sam-demo.json")
        #expect(try QuestionnaireAuthoring.validate(file: path).valid)
        let definition = try QuestionnaireLoader.load(path: path)
        let harness = try QuestionnaireHarness()
        let runner = TerminalQuestionnaireRunner(console: harness.console, input: harness.input, keys: ScriptedKeys([]),
                                                 localizer: Localizer(language: .english))
        var valence = try #require(runner.widget(for: definition.items[0]))
        _ = valence.handle(.character("3"))
        #expect(valence.render(width: 80) == Self.valenceFigures + [Self.underThree, "  very unpleasant ← → very pleasant"])
        #expect(definition.items[1].element == .samArousal(points: 5))
    }
}
