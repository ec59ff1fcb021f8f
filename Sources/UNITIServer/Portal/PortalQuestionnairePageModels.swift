import Foundation

/// `questionnaires.mustache`: the shared baseline and the study questionnaires the person may
/// answer, each with its state in words.
struct QuestionnaireListPage: PortalPage {
    var template: String { "questionnaires" }
    var baseline: [Entry]
    var study: [Entry]

    struct Entry: Sendable {
        var title: String
        var href: String
        var id: String
        var state: String
        var closed = false
        /// A one-time questionnaire that is answered.
        var done = false
    }
}

/// `questionnaire.mustache`: one questionnaire as a form (all items on one page, or one
/// question at a time with `at`, `progress` and the back button), or the line saying when a
/// one-time questionnaire was finished. The items are ``PortalQuestionnaireView/Item``s.
struct QuestionnairePage: PortalPage {
    var template: String { "questionnaire" }
    var title: String
    var action: String
    var intro: String?
    /// The questionnaire's study ended or it was deactivated: shown instead of answering.
    var closed: String?
    var finished: String?
    var fillable = false
    var draftNote: String?
    var items: [PortalQuestionnaireView.Item] = []
    var onePage = false
    var stepMode = false
    var at: String?
    var progress: String?
    var hasBack = false
    /// One at a time, past the last question: the finish button.
    var end = false
    /// The console's preview only: the same questionnaire as the `uniti` shell prints it,
    /// beside the form.
    var shell: ShellText?

    /// What a participant answering in the `uniti` shell reads (``QuestionnaireText/walkLines(_:asPage:)``),
    /// as plain text: the template escapes it, so markup in a question shows as written.
    struct ShellText: Sendable {
        var heading: String
        var note: String
        var text: String
    }
}
