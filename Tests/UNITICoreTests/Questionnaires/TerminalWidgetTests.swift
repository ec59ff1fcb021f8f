import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

@Suite("Questionnaire terminal widgets")
struct TerminalWidgetTests {
    let range = SliderRange(min: 0, max: 100, step: 10)

    @Test("the slider shows no thumb until the first key, then starts in the middle")
    func sliderHasNoAnchor() {
        var slider = SliderWidget(range: range, required: true, minLabel: "quiet", maxLabel: "loud")
        #expect(slider.position == nil)
        #expect(!slider.render(width: 80)[0].contains("●"))
        #expect(slider.handle(.right) == .stay)
        #expect(slider.value == 50)
        #expect(slider.render(width: 80)[0].contains("●"))
        #expect(slider.render(width: 80)[0].hasSuffix(" 50"))
    }

    @Test("arrow keys move the slider by a step within its ends; Enter submits the value")
    func sliderMoves() {
        var slider = SliderWidget(range: range, required: true, minLabel: "", maxLabel: "")
        for key in [Key.left, .left, .left] { _ = slider.handle(key) }  // place at 50, then 40, 30
        #expect(slider.value == 30)
        _ = slider.handle(.home)
        _ = slider.handle(.left)
        #expect(slider.value == 0)
        _ = slider.handle(.end)
        _ = slider.handle(.right)
        #expect(slider.value == 100)
        _ = slider.handle(.pageDown)
        #expect(slider.value == 90)
        #expect(slider.handle(.enter) == .submit(.number(90)))
    }

    @Test("Enter on an untouched slider asks for an answer when required and leaves it empty otherwise")
    func sliderUntouched() {
        var required = SliderWidget(range: range, required: true, minLabel: "", maxLabel: "")
        #expect(required.handle(.enter) == .needsAnswer)
        var optional = SliderWidget(range: range, required: false, minLabel: "", maxLabel: "")
        _ = optional.handle(.right)
        _ = optional.handle(.backspace)  // takes the thumb away again
        #expect(optional.handle(.enter) == .submit(nil))
        #expect(optional.handle(.interrupt) == .cancel)
    }

    @Test("a single choice list selects with Space, clears with Space again, and confirms with Enter")
    func singleChoice() {
        var list = ChoiceListWidget(values: [1, 2, 3], titles: ["a", "b", "c"], allowsMany: false, required: false)
        _ = list.handle(.down)
        _ = list.handle(.space)
        #expect(list.selected == [2])
        #expect(list.render(width: 80)[1] == "  > (•) b")
        _ = list.handle(.space)
        #expect(list.selected.isEmpty)
        _ = list.handle(.down)
        #expect(list.handle(.enter) == .submit(.integer(3)))
        #expect(list.render(width: 80)[2] == "  > (•) c")  // the confirmed choice stays visible
        #expect(list.handle(.character("-")) == .submit(nil))
    }

    @Test("a multiple choice list ticks several options and submits them in option order")
    func multipleChoice() {
        var list = ChoiceListWidget(values: [1, 2, 4], titles: ["a", "b", "c"], allowsMany: true, required: true)
        #expect(list.handle(.enter) == .needsAnswer)
        _ = list.handle(.end)
        _ = list.handle(.space)
        _ = list.handle(.home)
        _ = list.handle(.space)
        #expect(list.render(width: 80) == ["  > [x] a", "    [ ] b", "    [x] c"])
        #expect(list.handle(.enter) == .submit(.choices([1, 4])))
    }

    @Test("SAM and scale rows start unselected and move with arrows or digits")
    func pointScale() {
        var sam = SAMScaleWidget(element: .samValence(points: 5), required: true, caption: "", colors: false)
        #expect(sam.figures.count == 5)
        #expect(sam.selected == nil)
        #expect(sam.render(width: 80)[5] == "")  // the marker line is empty until a figure is chosen
        #expect(sam.handle(.enter) == .needsAnswer)
        _ = sam.handle(.right)
        #expect(sam.selected == 2)
        _ = sam.handle(.right)
        #expect(sam.handle(.enter) == .submit(.integer(4)))
        var scale = PointScaleWidget(values: Array(0...7), faces: (0...7).map(String.init), required: true, caption: "")
        _ = scale.handle(.character("6"))
        #expect(scale.handle(.enter) == .submit(.integer(6)))
    }

    @Test("terminal byte sequences decode into keys")
    func keyDecoding() {
        let decoder = KeyDecoder()
        #expect(decoder.decode([27, 91, 67])! == (Key.right, 3))
        #expect(decoder.decode([27, 91, 68, 27])! == (Key.left, 3))
        #expect(decoder.decode([27, 91, 53, 126])! == (Key.pageUp, 4))
        #expect(decoder.decode([27, 91]) == nil)
        #expect(decoder.decode([3])! == (Key.interrupt, 1))
        #expect(decoder.decode([13])! == (Key.enter, 1))
        #expect(decoder.decode([0xC3, 0xA4])! == (Key.character("ä"), 2))
    }

    @Test("the terminal front end answers a questionnaire from fed keys")
    func terminalRunner() throws {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "noise", text: "Noise now?", required: true, element: .yesNo),
            QuestionnaireItem(label: "level", text: "How loud?", required: true,
                              element: .slider(SliderRange(min: 0, max: 100, step: 10))),
            QuestionnaireItem(label: "calm", text: "Calm?", element: .slider(SliderRange(min: 0, max: 10, step: 1))),
            QuestionnaireItem(label: "mood", text: "Mood?", required: true, element: .samValence(points: 9)),
            QuestionnaireItem(label: "note", text: "Note", element: .freeText(multiline: false, maxLength: 20)),
        ], presentation: .oneAtATime)
        let keys = ScriptedKeys([
            .enter,                                  // yes (cursor on the first option)
            .enter, .right, .right, .right, .enter,  // slider: refused untouched, then 50 → 70
            .enter,                                  // optional slider left untouched
            .character("8"), .enter,                 // SAM 8
        ])
        let harness = try QuestionnaireHarness(lines: ["quiet today"])
        let result = try harness.engine(keys: keys).answer(definition, owner: "tyh")
        #expect(result.sheet.values == [
            "noise": .yesNo(true), "level": .number(70), "mood": .integer(8), "note": .text("quiet today"),
        ])
        #expect(keys.unread.isEmpty)
        #expect(harness.output.out.contains("2/5 How loud? *"))
        #expect(harness.output.out.contains("This question needs an answer."))
    }

    @Test("Ctrl-C in a widget abandons the questionnaire and keeps the draft")
    func terminalInterrupt() throws {
        let keys = ScriptedKeys([.enter, .right, .interrupt])
        let harness = try QuestionnaireHarness()
        #expect(throws: PromptCancelled.self) {
            try harness.engine(keys: keys).answer(QuestionnaireFixtures.everyElement, owner: "tys")
        }
        let draft = try #require(try harness.drafts.draft(owner: "tys", questionnaireID: "every-element"))
        #expect(draft.sheet.values == ["hears-noise": .yesNo(true)])
    }
}
