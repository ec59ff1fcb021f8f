import Foundation
import UNITIProtocol

/// A way of showing questions: the plain line protocol or the terminal widgets. A front end
/// only asks one question; the order (definition order, hidden items skipped, questions already
/// passed skipped, display items printed, unsupported ones announced) is the same for all and
/// lives in `run`, and the page (``runAsPage(_:afterEachAnswer:)``) is the same for all too.
public protocol QuestionnaireFrontEnd {
    var console: Console { get }
    /// Where lines are read: the page's prompt, and typed answers.
    var input: any LineInput { get }
    var text: QuestionnaireText { get }
    /// Asks one question until the session has accepted an answer (or an empty one). With
    /// `mayLeaveForLater` (a page) a required item also takes the empty answer: nothing is
    /// recorded and the item stays unpassed.
    func ask(_ item: QuestionnaireItem, in session: QuestionnaireSession, mayLeaveForLater: Bool) throws
}

extension QuestionnaireFrontEnd {
    /// Asks one question, item by item: a required item needs an answer.
    public func ask(_ item: QuestionnaireItem, in session: QuestionnaireSession) throws {
        try ask(item, in: session, mayLeaveForLater: false)
    }

    /// Asks every shown, not yet passed question in order. `afterEachAnswer` runs after each
    /// recorded answer (the engine saves the draft there). Throws `PromptCancelled` on Ctrl-C
    /// or end of input; answers given so far stay in the session.
    public func run(_ session: QuestionnaireSession, afterEachAnswer: (QuestionnaireSession) throws -> Void) throws {
        for item in session.definition.items {
            // Conditions only look back, so visibility is settled once the walk reaches an item.
            guard session.definition.visibleLabels(given: session.values).contains(item.label) else { continue }
            // Display items and unsupported ones print what the console's preview shows too
            // (``QuestionnaireText/displayLines(_:)``); an unsupported one is announced once.
            if let lines = text.displayLines(item) {
                if item.element.isQuestion {
                    guard !session.visited.contains(item.label) else { continue }
                    session.pass(item.label)
                }
                lines.forEach { console.line($0) }
                continue
            }
            guard !session.visited.contains(item.label) else { continue }
            try ask(item, in: session)
            try afterEachAnswer(session)
        }
    }

    /// The whole questionnaire on one page (Track Your Stress thesis, the questionnaire screen).
    ///
    /// Prints the page (``QuestionnairePage``), asks the shown questions not yet passed in order
    /// (a required one may be left for later with the empty answer), and then takes `save`, a
    /// question's number (answer or change it; the questions it shows are asked next, those it
    /// hides lose their answers) or `cancel` until the sheet is complete and saved. `save` with
    /// a required question unanswered is refused in one line naming them. Returns when the
    /// person saves; throws `PromptCancelled` on `cancel`, Ctrl-C or end of input, with every
    /// answer given so far in the session and, through `afterEachAnswer`, in the draft.
    public func runAsPage(_ session: QuestionnaireSession, afterEachAnswer: (QuestionnaireSession) throws -> Void) throws {
        let page = QuestionnairePage(session: session, text: text)
        // Required questions passed with the empty answer in this sitting: not asked again by
        // the walks after a change, but by the first walk of the next sitting (a resumed draft).
        var leftForLater = Set<String>()
        show(page)
        if try askUnpassed(session, leftForLater: &leftForLater, afterEachAnswer: afterEachAnswer) { show(page) }
        while true {
            guard let line = try input.readLine(prompt: page.prompt) else { throw PromptCancelled(.endOfInput) }
            switch page.choice(for: line) {
            case .save?:
                let unanswered = page.unansweredRequired
                if unanswered.isEmpty { return }
                console.line(page.refusal(unanswered))
            case .cancel?:
                throw PromptCancelled(.interrupted)
            case .question(let item)?:
                if let value = session.answers[item.label]?.value {
                    console.line(text.localizer("questionnaire.page.current", ["answer": text.shownAnswer(value, for: item)]))
                }
                try ask(item, in: session, mayLeaveForLater: true)
                try afterEachAnswer(session)
                _ = try askUnpassed(session, leftForLater: &leftForLater, afterEachAnswer: afterEachAnswer)
                show(page)
            case nil:
                console.line(page.accepted)
            }
        }
    }

    /// Prints the page after one empty line (a first headline brings its own).
    private func show(_ page: QuestionnairePage) {
        let lines = page.lines(width: console.isTerminal ? console.width : nil)
        if lines.first != "" { console.line() }
        for line in lines { console.line(line) }
    }

    /// Asks the shown questions not yet passed, in order, leaving out those left for later in
    /// this sitting; returns whether anything was asked.
    private func askUnpassed(_ session: QuestionnaireSession, leftForLater: inout Set<String>,
                             afterEachAnswer: (QuestionnaireSession) throws -> Void) throws -> Bool {
        var asked = false
        for item in session.definition.items where item.element.isQuestion {
            // Visibility is checked as the walk reaches each item: an answer can show later ones.
            guard session.definition.visibleLabels(given: session.values).contains(item.label),
                  !session.visited.contains(item.label), !leftForLater.contains(item.label) else { continue }
            if item.isUnsupported {
                session.pass(item.label)  // the page shows its notice
                continue
            }
            try ask(item, in: session, mayLeaveForLater: true)
            asked = true
            if session.visited.contains(item.label) {
                try afterEachAnswer(session)
            } else {
                leftForLater.insert(item.label)
            }
        }
        return asked
    }
}
