import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tinnitus-profile [NUMBER [ANSWER...]] [--json]` (standalone only): the tinnitus profile
/// questionnaire as a form. Without a number it lists the questions, answered ones marked, and
/// how complete the profile is (FA17, FA19); with a number it shows that question and takes
/// an answer (from the arguments, or asked), which is stored at once (FA18).
struct TinnitusProfileCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "tinnitus-profile", abstract: L("son.profile.abstract"))
    }

    @Argument(help: ArgumentHelp(L("son.profile.numberHelp"), valueName: "number")) var number: Int?
    @Argument(help: ArgumentHelp(L("son.profile.answerHelp"), valueName: "answer")) var answer: [String] = []
    @OptionGroup var output: JSONOutput

    struct Row: Encodable {
        let number: Int, label: String, question: String, answered: Bool, answer: AnswerValue?
    }
    struct Report: Encodable { let percentComplete: Int, questions: [Row] }

    func run(in context: ModuleContext) throws {
        var form = try TinnitusProfile.load(context)
        let text = QuestionnaireText(localizer: context.localizer)
        guard let number else {
            try show(form, text: text, context: context)
            return
        }
        let questions = form.questions
        guard (1...max(questions.count, 1)).contains(number), number <= questions.count else {
            throw UNITIError(L("son.profile.badNumber", ["number": "\(number)", "count": "\(questions.count)"]))
        }
        let item = questions[number - 1]
        let line: String
        if answer.isEmpty {
            showQuestion(item, number: number, form: form, text: text, console: context.console)
            guard let typed = try context.input.readLine(prompt: L(prompt(for: item)) + " ") else { return }
            line = typed
        } else {
            line = answer.joined(separator: " ")
        }
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else {
            context.console.line(L("son.profile.unchanged"))
            return
        }
        try TinnitusProfile.apply(line, to: item, in: &form)
        try TinnitusProfile.save(form, context)
        context.console.line(L("son.profile.saved", ["percent": "\(form.percentComplete)"]))
        showQuestion(item, number: number, form: form, text: text, console: context.console)
    }

    private func prompt(for item: QuestionnaireItem) -> String {
        switch item.element {
        case .singleChoice: return "son.profile.promptSingle"
        case .multipleChoice: return "son.profile.promptMultiple"
        default: return "son.profile.promptText"
        }
    }

    private func show(_ form: QuestionnaireForm, text: QuestionnaireText, context: ModuleContext) throws {
        let questions = form.questions
        if output.isRequested(in: context) {
            try context.console.json(Report(percentComplete: form.percentComplete, questions: questions.enumerated().map {
                Row(number: $0.offset + 1, label: $0.element.label, question: text.text($0.element.text),
                    answered: form.isAnswered($0.element.label), answer: form.answers[$0.element.label])
            }))
            return
        }
        let console = context.console
        console.line(text.text(form.definition.title) + " · " + L("son.profile.complete", ["percent": "\(form.percentComplete)"]))
        for (index, item) in questions.enumerated() {
            let mark = form.isAnswered(item.label) ? "[x]" : "[ ]"
            console.line("\(mark) \(index + 1). \(text.text(item.text))")
            if let value = form.answers[item.label] {
                console.line("       → " + text.describe(value, for: item))
            }
        }
        console.line(L("son.profile.howTo"))
    }

    private func showQuestion(_ item: QuestionnaireItem, number: Int, form: QuestionnaireForm,
                              text: QuestionnaireText, console: Console) {
        console.line("\(number). \(text.text(item.text))")
        switch item.element {
        case .singleChoice(let options), .multipleChoice(let options, _, _):
            let chosen: Set<Int>
            switch form.answers[item.label] {
            case .choices(let list)?: chosen = Set(list)
            case .number?: chosen = Set([form.answers[item.label]?.integer].compactMap { $0 })
            default: chosen = []
            }
            let single: Bool
            if case .singleChoice = item.element { single = true } else { single = false }
            for option in options {
                let on = chosen.contains(option.value)
                let box = single ? (on ? "(•)" : "( )") : (on ? "[x]" : "[ ]")
                console.line("  \(box) \(option.value)) \(text.text(option.text))")
            }
        default:
            console.line("  " + (form.answers[item.label].map { text.describe($0, for: item) } ?? L("son.profile.noAnswer")))
        }
    }
}
