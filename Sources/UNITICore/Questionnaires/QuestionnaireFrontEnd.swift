import Foundation
import UNITIProtocol

/// A way of showing questions: the plain line protocol or the terminal widgets. A front end
/// only asks one question; the order (definition order, hidden items skipped, questions already
/// passed skipped, display items printed, unsupported ones announced) is the same for all and
/// lives in `run`.
public protocol QuestionnaireFrontEnd {
    var console: Console { get }
    var text: QuestionnaireText { get }
    /// Asks one question until the session has accepted an answer (or an empty one).
    func ask(_ item: QuestionnaireItem, in session: QuestionnaireSession) throws
}

extension QuestionnaireFrontEnd {
    /// Asks every shown, not yet passed question in order. `afterEachAnswer` runs after each
    /// recorded answer (the engine saves the draft there). Throws `PromptCancelled` on Ctrl-C
    /// or end of input; answers given so far stay in the session.
    public func run(_ session: QuestionnaireSession, afterEachAnswer: (QuestionnaireSession) throws -> Void) throws {
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
                try ask(item, in: session)
                try afterEachAnswer(session)
            }
        }
    }
}
