import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

@Suite("Questionnaire terminal widgets", .timeLimit(.minutes(10)))
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
        #expect(list.render(width: 80)[1] == "  > (•) 2 b")
        _ = list.handle(.space)
        #expect(list.selected.isEmpty)
        _ = list.handle(.down)
        _ = list.handle(.space)
        #expect(list.handle(.enter) == .submit(.integer(3)))
        #expect(list.render(width: 80)[2] == "  > (•) 3 c")  // the confirmed choice stays visible
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
        #expect(list.render(width: 80) == ["  > [x] 1 a", "    [ ] 2 b", "    [x] 3 c"])
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
            .enter, .character("1"), .enter,         // nothing chosen: refused; then 1, yes
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
        let keys = ScriptedKeys([.space, .enter, .right, .interrupt])
        let harness = try QuestionnaireHarness()
        #expect(throws: PromptCancelled.self) {
            try harness.engine(keys: keys).answer(QuestionnaireFixtures.everyElement, owner: "tys")
        }
        let draft = try #require(try harness.drafts.draft(owner: "tys", questionnaireID: "every-element"))
        #expect(draft.sheet.values == ["hears-noise": .yesNo(true)])
    }

    // MARK: - Nothing chosen for the person; numbers choose (issue 29, points 2 and 3)

    @Test("a choice list chooses nothing by itself: Enter with the cursor on an option asks for an answer when required, leaves it unanswered when optional")
    func nothingChosenByItself() {
        for allowsMany in [false, true] {
            var required = ChoiceListWidget(values: [0, 1], titles: ["yes", "no"], allowsMany: allowsMany, required: true)
            #expect(required.handle(.enter) == .needsAnswer)
            _ = required.handle(.down)
            #expect(required.handle(.enter) == .needsAnswer)
            #expect(required.selected.isEmpty)
            #expect(!required.render(width: 80).joined().contains("•") && !required.render(width: 80).joined().contains("x]"))
            var optional = ChoiceListWidget(values: [0, 1, 2, 3], titles: ["not true at all", "b", "c", "d"],
                                            allowsMany: allowsMany, required: false)
            #expect(optional.handle(.enter) == .submit(nil))
        }
    }

    @Test("a digit chooses the option with that number; on twelve options 1 then 2 is option 12, and any other key starts a new number")
    func digitsChooseOptions() {
        var short = ChoiceListWidget(values: [10, 20, 30], titles: ["a", "b", "c"], allowsMany: false, required: true)
        _ = short.handle(.character("2"))
        #expect(short.selected == [20] && short.cursor == 1)
        _ = short.handle(.character("9"))  // no option 9: nothing changes
        #expect(short.selected == [20])
        #expect(short.handle(.enter) == .submit(.integer(20)))

        let twelve = Array(1...12)
        var long = ChoiceListWidget(values: twelve.map { $0 * 100 }, titles: twelve.map { "option \($0)" },
                                    allowsMany: false, required: true)
        _ = long.handle(.character("1"))
        #expect(long.selected == [100])
        _ = long.handle(.character("2"))
        #expect(long.selected == [1200] && long.cursor == 11)
        _ = long.handle(.character("3"))  // 123 is no option: a new number, 3
        #expect(long.selected == [300])
        _ = long.handle(.up)
        _ = long.handle(.character("1"))  // after another key, 1 is option 1 again
        #expect(long.selected == [100])
        #expect(long.render(width: 80)[0] == "  > (•)  1 option 1")
        #expect(long.render(width: 80)[11] == "    ( ) 12 option 12")

        var many = ChoiceListWidget(values: twelve, titles: twelve.map { "option \($0)" }, allowsMany: true, required: true)
        for key in [Key.character("1"), .character("2"), .character("1")] { _ = many.handle(key) }
        // 1, then 12 (which takes back the tick of 1), then a new 1.
        #expect(many.handle(.enter) == .submit(.choices([1, 12])))
        _ = many.handle(.down)
        _ = many.handle(.character("1"))  // again: unticks
        #expect(many.handle(.enter) == .submit(.choices([12])))
    }

    @Test("a scale from 0 to 10 takes 10 as two digits; a digit that makes no point starts a new number")
    func scaleDigits() {
        var scale = PointScaleWidget(values: Array(0...10), faces: (0...10).map(String.init), required: true, caption: "")
        _ = scale.handle(.character("1"))
        _ = scale.handle(.character("0"))
        #expect(scale.selected == 10)
        _ = scale.handle(.character("7"))
        #expect(scale.handle(.enter) == .submit(.integer(7)))
        var sam = SAMScaleWidget(element: .samArousal(points: 5), required: false, caption: "", colors: false)
        _ = sam.handle(.character("8"))  // no figure 8
        #expect(sam.selected == nil)
        #expect(sam.handle(.enter) == .submit(nil))
    }

    @Test("a number typed on a slider sets it, within range and on a step; a number that is not on the slider is refused and stays to be corrected")
    func sliderTypedNumber() {
        var slider = SliderWidget(range: SliderRange(min: 0, max: 100, step: 10), required: true, minLabel: "calm", maxLabel: "stressed")
        _ = slider.handle(.character("7"))
        #expect(slider.position == nil)  // 7 is between the steps: no thumb yet
        _ = slider.handle(.character("0"))
        #expect(slider.value == 70)
        #expect(slider.render(width: 80)[0].contains("●") && slider.render(width: 80)[0].hasSuffix(" 70_"))
        #expect(slider.handle(.enter) == .submit(.number(70)))

        var refusing = SliderWidget(range: SliderRange(min: 0, max: 100, step: 10), required: true, minLabel: "", maxLabel: "")
        for key in [Key.character("1"), .character("5"), .character("0")] { _ = refusing.handle(key) }
        #expect(refusing.handle(.enter) == .notOnSlider("150"))
        #expect(refusing.typed == "150")
        for key in [Key.backspace, .backspace, .backspace, .character("3"), .character("5")] { _ = refusing.handle(key) }
        #expect(refusing.handle(.enter) == .notOnSlider("35"))
        _ = refusing.handle(.backspace)
        _ = refusing.handle(.character("0"))
        #expect(refusing.handle(.enter) == .submit(.number(30)))
        // An arrow key leaves the typed number and moves from where the thumb stands.
        _ = refusing.handle(.character("9"))
        _ = refusing.handle(.right)
        #expect(refusing.typed.isEmpty && refusing.value == 40)

        var fine = SliderWidget(range: SliderRange(min: -5, max: 5, step: 0.5), required: false, minLabel: "", maxLabel: "")
        for key in [Key.character("-"), .character("2"), .character(","), .character("5")] { _ = fine.handle(key) }
        #expect(fine.handle(.enter) == .submit(.number(-2.5)))
        var optional = SliderWidget(range: range, required: false, minLabel: "", maxLabel: "")
        #expect(optional.handle(.character("-")) == .submit(nil))  // on a slider from 0, - still leaves it empty
    }

    @Test("on a terminal: Enter with nothing chosen says so in one line and stays; a typed number outside the slider says what is accepted")
    func runnerSaysWhatIsMissing() throws {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "aid", text: "Are you using a hearing aid or implant right now?", required: true, element: .yesNo),
            QuestionnaireItem(label: "help", text: "There are people who help me.",
                              element: .singleChoice(options: [ChoiceOption(value: 1, text: "not true at all"), ChoiceOption(value: 2, text: "true")])),
            QuestionnaireItem(label: "stress", text: "How stressed have you felt?", required: true,
                              element: .slider(SliderRange(min: 0, max: 100, step: 10))),
        ], presentation: .oneAtATime)
        let keys = ScriptedKeys([
            .enter, .character("2"), .enter,                     // refused, then 2: no
            .enter,                                              // optional: left unanswered
            .character("1"), .character("5"), .character("0"), .enter,  // refused
            .backspace, .backspace, .backspace, .character("7"), .character("0"), .enter,
        ])
        let harness = try QuestionnaireHarness()
        let result = try harness.engine(keys: keys).answer(definition, owner: "tyh")
        #expect(result.sheet.values == ["aid": .yesNo(false), "stress": .number(70)])
        #expect(keys.unread.isEmpty)
        #expect(harness.output.out.contains("This question needs an answer."))
        #expect(harness.output.out.contains("“150” is not on this slider. Type a number from 0 to 100 in steps of 10."))
    }
}
