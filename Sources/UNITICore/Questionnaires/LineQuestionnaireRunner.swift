import Foundation
import UNITIProtocol

/// The plain line protocol, used when standard input is not a terminal (pipes, scripts,
/// end-to-end tests): each question is printed once as a prompt with what it accepts, and the
/// answer is the next line. A malformed or out-of-range line records nothing; the prompt is
/// repeated after one line saying what is accepted. `-` leaves an optional item empty; on a
/// page, `-` or an empty line leaves a required item for later.
public struct LineQuestionnaireRunner: QuestionnaireFrontEnd {
    public let console: Console
    public let input: any LineInput
    public let text: QuestionnaireText

    public init(console: Console, input: any LineInput, localizer: Localizer) {
        self.console = console
        self.input = input
        self.text = QuestionnaireText(localizer: localizer)
    }

    public func ask(_ item: QuestionnaireItem, in session: QuestionnaireSession, mayLeaveForLater: Bool) throws {
        for line in text.details(item) { console.line(line) }
        let later = mayLeaveForLater && item.required
        let progress = session.definition.presentation == .oneAtATime ? session.progress : nil
        let prompt = text.prompt(item, progress: progress, mayLeaveForLater: later)
        let accepted = AnswerParser.accepted(for: item, localizer: text.localizer, mayLeaveForLater: later)
        while true {
            guard let line = try input.readLine(prompt: prompt) else { throw PromptCancelled(.endOfInput) }
            // Enter alone is how a person passes a question on a page; it records nothing.
            if later, line.trimmingCharacters(in: .whitespaces).isEmpty { return }
            switch AnswerParser.read(line, for: item.element) {
            case .empty:
                if later { return }
                if item.required {
                    console.line(text.localizer("questionnaire.requiredHere") + " " + accepted)
                    continue
                }
                try session.leaveEmpty(item.label)
                return
            case .malformed:
                console.line(accepted)
            case .value(let value):
                if session.rejection(of: value, for: item) != nil {
                    console.line(accepted)
                    continue
                }
                try session.answer(value, for: item.label)
                return
            }
        }
    }
}
