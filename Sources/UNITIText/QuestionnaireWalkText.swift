import UNITIProtocol

/// What the shell's plain line protocol prints as its walk reaches each item: display items as
/// they stand, a question's details (options, end labels, SAM pictograms) and then its prompt.
/// The runners in UNITICore print these lines; the study server's console prints the same lines
/// in its questionnaire preview, so coordinators see beside the portal's form what a
/// participant in the `uniti` shell reads, from the one function that writes it.
extension QuestionnaireText {
    /// The prompt after which the line protocol reads the answer: the question, in short what
    /// it accepts ("(0–7)", "(y/n, - to skip)"), and the blank the answer is typed after. With
    /// `mayLeaveForLater` (a required item on a page) the short form says Enter leaves it for later.
    public func prompt(_ item: QuestionnaireItem, progress: (position: Int, total: Int)?, mayLeaveForLater: Bool) -> String {
        question(item, progress: progress) + " "
            + AnswerParser.hint(for: item, localizer: localizer, mayLeaveForLater: mayLeaveForLater) + " "
    }

    /// The lines of an item that takes no answer (a headline, display text) or cannot be
    /// answered by this version (an unsupported element, announced instead of failing); nil
    /// for a question, which a front end asks.
    public func displayLines(_ item: QuestionnaireItem) -> [String]? {
        switch item.element {
        case .headline:
            return ["", text(item.text).uppercased()]
        case .text:
            return [text(item.text)]
        case .unsupported(let type):
            return [question(item, progress: nil), "  " + localizer("questionnaire.unsupported", ["type": type])]
        default:
            return nil
        }
    }

    /// Every item of `definition` in order as the line protocol prints it to a person answering
    /// item by item with every item shown (a `showIf` that would hide an item is not decided
    /// here, since no answers are given): display lines, and for each question its details and
    /// its prompt on a line of its own, with the progress ("3/9 ") of a one-at-a-time
    /// definition. `mayLeaveForLater` gives the prompts of a questionnaire answered as a page,
    /// where a required question may be passed with Enter and answered later.
    public func walkLines(_ definition: QuestionnaireDefinition, mayLeaveForLater: Bool = false) -> [String] {
        let total = definition.questions.count
        var position = 0
        var lines: [String] = []
        for item in definition.items {
            if item.element.isQuestion { position += 1 }
            if let shown = displayLines(item) {
                lines += shown
                continue
            }
            let progress = definition.presentation == .oneAtATime ? (position, total) : nil
            lines += details(item)
            lines.append(prompt(item, progress: progress, mayLeaveForLater: mayLeaveForLater && item.required))
        }
        return lines
    }
}
