import Foundation
import UNITIProtocol

/// Answering on a terminal with widgets: sliders, point scales and SAM rows moved with the
/// arrow keys or given a typed number, choice lists chosen by number or with arrows and Space;
/// Enter confirms. Nothing is chosen until the person chooses: Enter with nothing chosen says in
/// one line that a required item needs an answer, and leaves an optional one unanswered. Free
/// text and dates are typed on the line editor. Ctrl-C abandons (the engine keeps the draft). On
/// a page, a required item's widget takes the empty answer like an optional one's (`-`, or
/// Enter with nothing chosen), and the item is left for later.
public struct TerminalQuestionnaireRunner: QuestionnaireFrontEnd {
    public let console: Console
    public let input: any LineInput
    public let keys: any KeyInput
    public let text: QuestionnaireText

    public init(console: Console, input: any LineInput, keys: any KeyInput, localizer: Localizer) {
        self.console = console
        self.input = input
        self.keys = keys
        self.text = QuestionnaireText(localizer: localizer)
    }

    /// The widget for an item; nil for items typed as a line. With `mayLeaveForLater` a
    /// required item's widget lets the empty answer through, as an optional item's does.
    public func widget(for item: QuestionnaireItem, mayLeaveForLater: Bool = false) -> (any QuestionWidget)? {
        let l = text.localizer
        let required = item.required && !mayLeaveForLater
        switch item.element {
        case .yesNo:
            return ChoiceListWidget(values: [0, 1], titles: [l("questionnaire.yes"), l("questionnaire.no")],
                                    allowsMany: false, required: required)
        case .singleChoice(let options):
            return ChoiceListWidget(values: options.map(\.value), titles: options.map { text.text($0.text) },
                                    allowsMany: false, required: required)
        case .multipleChoice(let options, _, _):
            return ChoiceListWidget(values: options.map(\.value), titles: options.map { text.text($0.text) },
                                    allowsMany: true, required: required)
        case .slider(let range):
            return SliderWidget(range: range, required: required,
                                minLabel: text.text(range.minLabel), maxLabel: text.text(range.maxLabel))
        case .scale(let min, let max, let minLabel, let maxLabel):
            guard max > min, max - min <= 100 else { return nil }
            let values = Array(min...max)
            var caption: [String] = []
            if let minLabel { caption.append("\(min) = \(text.text(minLabel))") }
            if let maxLabel { caption.append("\(max) = \(text.text(maxLabel))") }
            return PointScaleWidget(values: values, faces: values.map(String.init), required: required,
                                    caption: caption.joined(separator: ", "))
        case .samValence, .samArousal:
            let ends = SAMPictograms.endLabels(for: item.element).map { l($0) }
            return SAMScaleWidget(element: item.element, required: required, caption: "\(ends[0]) ← → \(ends[1])",
                                  colors: console.isTerminal)
        default:
            return nil
        }
    }

    public func ask(_ item: QuestionnaireItem, in session: QuestionnaireSession, mayLeaveForLater: Bool) throws {
        let progress = session.definition.presentation == .oneAtATime ? session.progress : nil
        let later = mayLeaveForLater && item.required
        guard var widget = widget(for: item, mayLeaveForLater: later) else {
            // Free text and dates: typed on the line editor, with the same rules as the line protocol.
            try LineQuestionnaireRunner(console: console, input: input, localizer: text.localizer)
                .ask(item, in: session, mayLeaveForLater: later)
            return
        }
        console.line(text.question(item, progress: progress))
        console.line("  " + text.localizer(widgetHelpKey(item)))
        if later { console.line("  " + text.localizer("questionnaire.page.help.later")) }
        let width = console.width
        var drawn = 0
        var message = ""
        func draw() {
            let lines = widget.render(width: width) + [message]
            var output = "\r"
            if drawn > 1 { output += "\u{1B}[\(drawn - 1)A" }
            output += lines.map { "\u{1B}[2K" + $0 }.joined(separator: "\n")
            console.write(output)
            drawn = lines.count
        }
        let outcome: AnswerValue?? = try keys.withRawMode {
            draw()
            while true {
                let key = try keys.readKey()
                switch widget.handle(key) {
                case .stay:
                    message = ""
                case .needsAnswer:
                    message = text.localizer("questionnaire.requiredHere")
                case .notOnSlider(let typed):
                    message = text.localizer("questionnaire.slider.notAValue", ["value": typed]) + " "
                        + AnswerParser.accepted(for: item, localizer: text.localizer)
                case .cancel:
                    return AnswerValue??.none
                case .submit(let value):
                    if let value, session.rejection(of: value, for: item) != nil {
                        message = AnswerParser.accepted(for: item, localizer: text.localizer)
                    } else {
                        message = ""
                        draw()  // leave the final state on screen
                        return .some(value)
                    }
                }
                draw()
            }
        }
        console.write("\n")
        guard let chosen = outcome else { throw PromptCancelled(.interrupted) }
        if let value = chosen {
            try session.answer(value, for: item.label)
        } else if later {
            return  // left for later: nothing recorded, asked again by a later walk
        } else {
            try session.leaveEmpty(item.label)
        }
    }

    private func widgetHelpKey(_ item: QuestionnaireItem) -> String {
        switch item.element {
        case .multipleChoice: return "questionnaire.help.multiple"
        case .yesNo, .singleChoice: return "questionnaire.help.single"
        case .samValence, .samArousal: return "questionnaire.help.sam"
        case .scale: return "questionnaire.help.scale"
        default: return "questionnaire.help.slider"
        }
    }
}
