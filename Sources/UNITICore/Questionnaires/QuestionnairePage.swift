import ArgumentParser
import Foundation
import UNITIProtocol

/// The whole questionnaire as one page (Track Your Stress thesis, the questionnaire screen):
/// every shown item in order, the questions numbered from 1 with the answer given so far, the
/// required ones marked, and the prompt below it that saves, cancels, or opens a question by
/// its number. Saving is refused, naming the questions, while a required one is unanswered.
///
/// A view of the session, not a copy: numbers, answers and the shown items follow every change,
/// so the page printed last always matches what its prompt accepts.
///
/// Topics: ``lines(width:)``, ``choice(for:)``, ``unansweredRequired``, ``refusal(_:)``.
struct QuestionnairePage {
    let session: QuestionnaireSession
    let text: QuestionnaireText

    /// What a line typed at the page's prompt asks for.
    enum Choice: Equatable {
        case save
        case cancel
        /// Answer or change this question (the one with that number on the page).
        case question(QuestionnaireItem)
    }

    /// How much of a question the refusal quotes.
    static let shortTextWidth = 32

    /// The shown questions that can be answered, in definition order; number n is `questions[n - 1]`.
    var questions: [QuestionnaireItem] {
        session.visibleQuestions.filter { !$0.isUnsupported }
    }

    /// Required questions on the page still without an answer, with their numbers.
    var unansweredRequired: [(number: Int, item: QuestionnaireItem)] {
        questions.enumerated()
            .filter { $0.element.required && session.answers[$0.element.label] == nil }
            .map { (number: $0.offset + 1, item: $0.element) }
    }

    /// The page (``QuestionnaireText/pageLines(_:answers:width:)``, which the console's preview
    /// prints too): the shown items with the answers given so far.
    func lines(width: Int?) -> [String] {
        text.pageLines(session.visibleItems, answers: session.values, width: width)
    }

    /// The prompt below the page, with the words in the person's language.
    var prompt: String {
        text.pagePrompt(questionCount: questions.count)
    }

    /// The one line saying what the prompt accepts.
    var accepted: String {
        text.localizer("questionnaire.page.accepted", text.pageWords(questionCount: questions.count))
    }

    /// What `line` asks for: a word (in any language, ``QuestionnairePageWord``) or the number of
    /// a question on the page; nil for anything else.
    func choice(for line: String) -> Choice? {
        let typed = line.trimmingCharacters(in: .whitespaces)
        if let number = Int(typed) {
            let questions = questions
            guard number >= 1, number <= questions.count else { return nil }
            return .question(questions[number - 1])
        }
        switch QuestionnairePageWord(argument: typed) {
        case .save?: return .save
        case .cancel?: return .cancel
        case nil: return nil
        }
    }

    /// The one line refusing to save, naming each unanswered required question by number and
    /// the start of its text.
    func refusal(_ unanswered: [(number: Int, item: QuestionnaireItem)]) -> String {
        let named = unanswered.map { number, item in
            var short = text.text(item.text)
            if short.isEmpty { short = item.label }
            return text.localizer("questionnaire.page.namedQuestion", [
                "number": String(number), "text": short.truncated(toDisplayWidth: Self.shortTextWidth),
            ])
        }
        return text.localizer("questionnaire.page.saveRefused", ["questions": named.joined(separator: ", ")])
    }
}

/// The words the page's prompt takes besides a number, in English and in every language of the
/// string tables (`questionnaire.page.words.save` is `speichern` in German), whatever language
/// the page is shown in: a script written in either language works in both.
enum QuestionnairePageWord: String, CaseIterable, LocalizedArgumentWords {
    case save, cancel

    static var wordsKey: String { "questionnaire.page.words" }
}

extension QuestionnaireItem {
    /// An item of a type this version cannot ask.
    var isUnsupported: Bool {
        if case .unsupported = element { return true }
        return false
    }
}
