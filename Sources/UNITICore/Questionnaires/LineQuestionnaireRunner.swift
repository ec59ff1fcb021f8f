import Foundation
import UNITIProtocol

/// The plain line protocol, used when standard input is not a terminal (pipes, scripts,
/// end-to-end tests): each question is printed once as a prompt with what it accepts, and the
/// answer is the next line. A malformed or out-of-range line records nothing; the prompt is
/// repeated after one line saying what is accepted. `-` leaves an optional item empty.
public struct LineQuestionnaireRunner {
    public let console: Console
    public let input: any LineInput
    public let text: QuestionnaireText

    public init(console: Console, input: any LineInput, localizer: Localizer) {
        self.console = console
        self.input = input
        self.text = QuestionnaireText(localizer: localizer)
    }

    /// Asks every shown, not yet passed question in order. `afterEachAnswer` runs after each
    /// recorded answer (the engine saves the draft there). Throws `PromptCancelled` on Ctrl-C
    /// or end of input; answers given so far stay in the session.
    public func run(_ session: QuestionnaireSession, afterEachAnswer: (QuestionnaireSession) throws -> Void) throws {
        try QuestionnaireWalk.walk(session, console: console, text: text) { item in
            try ask(item, in: session)
            try afterEachAnswer(session)
        }
    }

    func ask(_ item: QuestionnaireItem, in session: QuestionnaireSession) throws {
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

/// The order both front ends follow: items in definition order, skipping hidden ones and
/// questions already passed; display items are printed, unsupported ones announced.
enum QuestionnaireWalk {
    static func walk(_ session: QuestionnaireSession, console: Console, text: QuestionnaireText,
                     ask: (QuestionnaireItem) throws -> Void) throws {
        for item in session.definition.items {
            // Conditions only look back, so visibility is settled once the walk reaches an item.
            guard session.definition.visibleLabels(given: session.values).contains(item.label) else { continue }
            switch item.element {
            case .headline:
                console.line()
                console.line(text.text(item.text).uppercased())
            case .text:
                console.line(text.text(item.text))
            case .unsupported(let type):
                guard !session.visited.contains(item.label) else { continue }
                console.line(text.question(item, progress: nil))
                console.line("  " + text.localizer("questionnaire.unsupported", ["type": type]))
                session.pass(item.label)
            default:
                guard !session.visited.contains(item.label) else { continue }
                try ask(item)
            }
        }
    }
}
