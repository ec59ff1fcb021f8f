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
            return ["", localizer.language.uppercased(text(item.text))]
        case .text:
            return [text(item.text)]
        case .unsupported(let type):
            return [question(item, progress: nil), "  " + localizer("questionnaire.unsupported", ["type": type])]
        default:
            return nil
        }
    }

    /// The widest the page's question column gets; a longer question overruns rather than
    /// pushing every answer to the right edge.
    static let pageQuestionColumnWidth = 56

    /// A questionnaire as one page (Track Your Stress thesis, the questionnaire screen):
    /// headlines as in the walk, texts indented like the questions, the questions as one aligned
    /// table (number, question with `*` when required, the answer given so far), unsupported
    /// items with their notice, and the legend when a question is required. With a width, every
    /// line is cut to it.
    public func pageLines(_ items: [QuestionnaireItem], answers: [String: AnswerValue], width: Int?) -> [String] {
        enum Entry {
            case lines([String])
            case question
        }
        var entries: [Entry] = []
        var rows: [[String]] = []
        for item in items {
            if let lines = displayLines(item) {
                // The walk's lines; on the page all but a headline are indented like the questions.
                if case .headline = item.element { entries.append(.lines(lines)) } else { entries.append(.lines(lines.map { "  " + $0 })) }
                continue
            }
            entries.append(.question)
            rows.append(["\(rows.count + 1).", question(item, progress: nil), shownAnswer(answers[item.label], for: item)])
        }
        let table = TextTable(columns: [.right, .init(.left, maximumWidth: Self.pageQuestionColumnWidth), .left], rows: rows)
        var tableRows = table.wrappedRows(width: width)[...]
        var page: [String] = []
        for entry in entries {
            switch entry {
            case .lines(let lines): page += lines.map { line in width.map { line.truncated(toDisplayWidth: $0) } ?? line }
            case .question: page += tableRows.popFirst() ?? [""]
            }
        }
        if items.contains(where: { $0.element.isQuestion && $0.required }) { page.append(localizer("questionnaire.page.legend")) }
        return page
    }

    /// The prompt below a page of `questionCount` questions, with the words in the person's language.
    public func pagePrompt(questionCount: Int) -> String {
        localizer("questionnaire.page.prompt", pageWords(questionCount: questionCount)) + " "
    }

    /// The words a page's prompt shows for saving and cancelling (the first of a table's
    /// alternatives, `speichern|sichern`), and how many questions the page numbers.
    public func pageWords(questionCount: Int) -> [String: String] {
        func shown(_ key: String) -> String {
            let words = localizer(key)
            return String(words.split(separator: "|").first ?? Substring(words)).trimmingCharacters(in: .whitespaces)
        }
        return ["save": shown("questionnaire.page.words.save"), "cancel": shown("questionnaire.page.words.cancel"),
                "count": String(questionCount)]
    }

    /// What the shell prints for `definition` before any answer is given (a `showIf` that would
    /// hide an item is not decided here, so every item is shown).
    ///
    /// Item by item (`asPage` off, or a definition shown one at a time): display lines, and for
    /// each question its details and its prompt on a line of its own, with the progress ("3/9 ")
    /// of a one-at-a-time definition. As a page (a study questionnaire presented `allOnOnePage`,
    /// ``QuestionnaireFrontEnd/runAsPage``): the page, then each question's details and its prompt,
    /// where a required one may be left for later with Enter, then the page's own prompt.
    public func walkLines(_ definition: QuestionnaireDefinition, asPage: Bool = false) -> [String] {
        if asPage, definition.presentation == .allOnOnePage {
            var lines = pageLines(definition.items, answers: [:], width: nil)
            if lines.first != "" { lines.insert("", at: 0) }
            let questions = definition.items.filter { $0.element.isQuestion && displayLines($0) == nil }
            for item in questions {
                lines += details(item)
                lines.append(prompt(item, progress: nil, mayLeaveForLater: item.required))
            }
            lines.append(pagePrompt(questionCount: questions.count))
            return lines
        }
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
            lines.append(prompt(item, progress: progress, mayLeaveForLater: false))
        }
        return lines
    }
}
