import Foundation
import UNITIProtocol

/// The plain line protocol, used when standard input is not a terminal (pipes, scripts,
/// end-to-end tests): each question is printed once as a prompt with what it accepts, and the
/// answer is the next line. A malformed or out-of-range line records nothing; the prompt is
/// repeated after one line saying what is accepted. `-` leaves an optional item empty.
public struct LineQuestionnaireRunner: QuestionnaireFrontEnd {
    public let console: Console
    public let input: any LineInput
    public let text: QuestionnaireText

    public init(console: Console, input: any LineInput, localizer: Localizer) {
        self.console = console
        self.input = input
        self.text = QuestionnaireText(localizer: localizer)
    }

    public func ask(_ item: QuestionnaireItem, in session: QuestionnaireSession) throws {
        for line in text.details(item) { console.line(line) }
        let progress = session.definition.presentation == .oneAtATime ? session.progress : nil
        let prompt = text.question(item, progress: progress) + " " + AnswerParser.hint(for: item, localizer: text.localizer) + " "
        let accepted = AnswerParser.accepted(for: item, localizer: text.localizer)
        while true {
            guard let line = try input.readLine(prompt: prompt) else { throw PromptCancelled(.endOfInput) }
            switch AnswerParser.read(line, for: item.element) {
            case .empty:
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
