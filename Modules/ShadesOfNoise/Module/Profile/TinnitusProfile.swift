import Foundation
import UNITICore
import UNITIProtocol

/// The tinnitus profile questionnaire of the standalone program (Shades Of Noise thesis 6.4.4,
/// FA14–FA19): bundled as `son-tinnitus-profile.json` in the core format, answered as a form
/// (``QuestionnaireForm``) in any order; every change is stored at once and synced as a record.
enum TinnitusProfile {
    static let questionnaireID = "son-tinnitus-profile"

    static func definition() throws -> QuestionnaireDefinition {
        try QuestionnaireLoader.bundled(questionnaireID)
    }

    static func load(_ context: ModuleContext) throws -> QuestionnaireForm {
        try QuestionnaireFormStore(records: context.records).form(definition())
    }

    static func save(_ form: QuestionnaireForm, _ context: ModuleContext) throws {
        try QuestionnaireFormStore(records: context.records).save(form)
    }

    /// Applies one line of answer to a question: option numbers (each toggles; a single choice
    /// chosen again is reset) for a choice question, the text for a free-text one, `-` to clear.
    static func apply(_ answer: String, to item: QuestionnaireItem, in form: inout QuestionnaireForm) throws {
        let trimmed = answer.trimmingCharacters(in: .whitespaces)
        if trimmed == "-" {
            try form.clear(item.label)
            return
        }
        switch item.element {
        case .singleChoice, .multipleChoice:
            let parts = trimmed.split(whereSeparator: { $0 == "," || $0 == " " })
            guard !parts.isEmpty else { return }
            var changed = form
            for part in parts {
                guard let value = Int(part) else {
                    throw UNITIError(L("son.profile.notOption", ["answer": String(part)]))
                }
                try changed.choose(value, for: item.label)
            }
            form = changed  // all or nothing: a bad number in the list changes nothing
        default:
            try form.setText(trimmed, for: item.label)
        }
    }
}
