import Foundation
import Hummingbird
import UNITIProtocol

/// A questionnaire's settings page (`/console/studies/{id}/questionnaires/{q}/settings`): its
/// schedule, whether participants may change their reminders, the completion window and the
/// message after saving, field by field, without editing the definition's JSON.
///
/// A change is a new version of the newest definition, as `questionnaire update` makes it
/// (``QuestionnaireDocument/nextVersion()``, ``StudyAdministration/updateQuestionnaire(_:from:)``):
/// a stored version never changes, and devices take the new one at their next sync. The
/// changed definition is checked by the validator the CLI and the upload use, and each problem is
/// shown beside the field it concerns, in the member's language.
extension ConsoleRoutes {
    func questionnaireSettings(_ request: Request, _ context: StudyContext) async throws -> Response {
        let document = try await questionnaire(context), language = context.console.language
        return try await page(QuestionnaireSettingsFields(document.definition).page(document, language), context,
                              notice: notice(request, language))
    }

    func saveQuestionnaireSettings(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), before = try await questionnaire(context), language = context.console.language
        let fields = QuestionnaireSettingsFields(form, languages: QuestionnaireSettingsFields.languages(before.definition))
        var document = before.nextVersion()
        // Every problem at once: what cannot be read, then what the validator finds in the rest
        // (a field that could not be read is left out of the definition, so it is named once).
        var errors = fields.apply(to: &document.definition)
        var others: [String] = []
        for problem in QuestionnaireValidator.validate(document.definition) {
            if let field = QuestionnaireSettingsFields.field(of: problem.path) {
                errors[field] = errors[field] ?? QuestionnaireSettingsFields.message(field, problem.code)
            } else {
                others.append("\(problem)")
            }
        }
        guard errors.isEmpty, others.isEmpty else {
            var page = fields.page(before, language, errors: errors.mapValues { PortalText.text($0, language) })
            page.problems = others
            return try await self.page(page, context, status: .unprocessableContent, error: PortalText.text("console.error.fields", language))
        }
        let path = "/console/studies/\(before.studyId)/questionnaires/\(before.id)/settings"
        do {
            guard try await administration(context).updateQuestionnaire(document, from: before) != nil else {
                return context.console.base.redirect(to: path + "?notice=settingsUnchanged")
            }
        } catch let error as APIError {
            var page = fields.page(before, language)
            page.problems = [error.message]
            return try await self.page(page, context, status: .unprocessableContent, error: PortalText.text("console.error.fields", language))
        }
        return context.console.base.redirect(to: path + "?notice=questionnaireUpdated")
    }

    /// The newest version of the route's questionnaire in the route's study (404 otherwise).
    func questionnaire(_ context: StudyContext) async throws -> QuestionnaireDocument {
        let studyId = context.study.study.id
        guard let id = context.parameters.get("questionnaire"),
              let document = try await store.latestQuestionnaires(studyId: studyId).first(where: { $0.id == id }) else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        return document
    }
}

/// The settings form's values as typed (text, so a wrong value is shown back as it was), read
/// from a definition or from the submitted form, and put into a definition.
struct QuestionnaireSettingsFields {
    var frequency = "", timing = "", at = "", start = "", end = "", every = "", amount = "", startOnDay = ""
    var scheduleChangeable = false
    var completionWindow = ""
    var lateAnswers = ""
    /// The message after saving, by language.
    var messages: [String: String] = [:]

    init(_ definition: QuestionnaireDefinition) {
        if let schedule = definition.schedule {
            frequency = schedule.frequency.rawValue
            timing = schedule.timing.rawValue
            at = schedule.at ?? ""
            start = schedule.start ?? ""
            end = schedule.end ?? ""
            every = schedule.every.map(String.init) ?? ""
            amount = schedule.amount.map(String.init) ?? ""
            startOnDay = schedule.startOnDay.map(String.init) ?? ""
        }
        scheduleChangeable = definition.scheduleChangeable
        completionWindow = definition.completionWindowMinutes.map(String.init) ?? ""
        lateAnswers = definition.lateAnswerMinutes.map(String.init) ?? ""
        messages = definition.afterSaving?.message?.values ?? [:]
    }

    init(_ form: PortalForm, languages: [String]) {
        func value(_ name: String) -> String { form[name].trimmingCharacters(in: .whitespacesAndNewlines) }
        (frequency, timing, at, start, end) = (value("frequency"), value("timing"), value("at"), value("start"), value("end"))
        (every, amount, startOnDay, completionWindow) = (value("every"), value("amount"), value("startOnDay"), value("completionWindow"))
        lateAnswers = value("lateAnswers")
        scheduleChangeable = form["scheduleChangeable"] == "on"
        for language in languages { messages[language] = value("message-\(language)") }
    }

    /// The languages of the message: those participants read the portal in, of the title and of
    /// the message, English first (the only one required, as the validator asks).
    static func languages(_ definition: QuestionnaireDefinition) -> [String] {
        ConsoleRoutes.languagesFirstEnglish(Set(PortalText.languages).union(definition.title.values.keys)
            .union(definition.afterSaving?.message.map { Array($0.values.keys) } ?? []))
    }

    /// Puts the values into `definition`; the string keys of the values that cannot be read, by
    /// field (what the validator checks, such as ranges and dates, it reports afterwards).
    func apply(to definition: inout QuestionnaireDefinition) -> [String: String] {
        var errors: [String: String] = [:]
        func number(_ text: String, _ field: String) -> Int? {
            guard !text.isEmpty else { return nil }
            guard let value = Int(text) else { errors[field] = Self.message(field, nil); return nil }
            return value
        }
        func day(_ text: String) -> String? { text.isEmpty ? nil : text }
        let every = number(self.every, "every"), amount = number(self.amount, "amount"), startOnDay = number(self.startOnDay, "startOnDay")
        definition.completionWindowMinutes = number(completionWindow, "completionWindow")
        definition.lateAnswerMinutes = number(lateAnswers, "lateAnswers")
        if frequency.isEmpty {
            definition.schedule = nil
        } else if let frequency = QuestionnaireSchedule.Frequency(rawValue: self.frequency) {
            guard let timing = QuestionnaireSchedule.Timing(rawValue: self.timing) else {
                errors["timing"] = "console.qsettings.error.timing"
                return errors
            }
            definition.schedule = QuestionnaireSchedule(frequency: frequency, timing: timing, at: day(at), start: day(start), end: day(end),
                                                        every: every, amount: amount, startOnDay: startOnDay)
        } else {
            errors["frequency"] = "console.qsettings.error.frequency"
        }
        definition.scheduleChangeable = scheduleChangeable
        let texts = messages.filter { !$0.value.isEmpty }
        var afterSaving = definition.afterSaving ?? AfterSaving()
        afterSaving.message = texts.isEmpty ? nil : LocalizedText(texts)
        definition.afterSaving = afterSaving.message == nil && afterSaving.help.isEmpty ? nil : afterSaving
        return errors
    }

    /// The form field a validator problem belongs to, nil for one no field of this form causes.
    static func field(of path: String) -> String? {
        switch path {
        case "schedule": "frequency"
        case "schedule.at": "at"
        case "schedule.start": "start"
        case "schedule.end": "end"
        case "schedule.every": "every"
        case "schedule.amount": "amount"
        case "schedule.startOnDay": "startOnDay"
        case "completionWindowMinutes": "completionWindow"
        case "lateAnswerMinutes": "lateAnswers"
        case "afterSaving.message": "message-en"
        default: nil
        }
    }

    /// The string key of a field's error: what the field takes, or for a date range or a fixed
    /// schedule without its date, what is wrong.
    static func message(_ field: String, _ code: ValidationProblem.Code?) -> String {
        switch code {
        case .dateRangeNotIncreasing?: "console.qsettings.error.endBeforeStart"
        case .scheduleIncomplete?: "console.qsettings.error.atMissing"
        default: "console.qsettings.error.\(field.hasPrefix("message") ? "message" : field)"
        }
    }

    func page(_ document: QuestionnaireDocument, _ language: String, errors: [String: String] = [:]) -> ConsoleQuestionnaireSettingsPage {
        func choices(_ values: [String], _ chosen: String, _ prefix: String) -> [ConsoleSettingsPage.Choice] {
            values.map { .init(value: $0, label: PortalText.text("\(prefix).\($0.isEmpty ? "none" : $0)", language), chosen: $0 == chosen) }
        }
        return ConsoleQuestionnaireSettingsPage(
            id: document.id, version: document.version, title: document.definition.title.text(in: language),
            frequencies: choices([""] + QuestionnaireSchedule.Frequency.allCases.map(\.rawValue), frequency, "console.qsettings.frequency"),
            timings: choices(QuestionnaireSchedule.Timing.allCases.map(\.rawValue), timing, "console.qsettings.timing"),
            at: at, start: start, end: end, every: every, amount: amount, startOnDay: startOnDay,
            scheduleChangeable: scheduleChangeable, completionWindow: completionWindow, lateAnswers: lateAnswers,
            defaultWindow: PromptTiming.defaultCompletionWindowMinutes,
            messages: Self.languages(document.definition).map {
                .init(code: $0, language: ConsoleRoutes.languageName($0, language), text: messages[$0] ?? "", fieldError: errors["message-\($0)"])
            },
            errors: errors)
    }
}

struct ConsoleQuestionnaireSettingsPage: PortalPage {
    var template: String { "console_questionnaire_settings" }
    var id: String
    var version: Int
    var title: String
    var frequencies: [ConsoleSettingsPage.Choice]
    var timings: [ConsoleSettingsPage.Choice]
    var at: String
    var start: String
    var end: String
    var every: String
    var amount: String
    var startOnDay: String
    var scheduleChangeable: Bool
    var completionWindow: String
    var lateAnswers: String
    var defaultWindow: Int
    var messages: [Message]
    /// The line beside each field that is wrong, by field name.
    var errors: [String: String]
    /// Problems no field of the form explains (the validator's own lines).
    var problems: [String] = []

    struct Message: Sendable {
        var code: String
        var language: String
        var text: String
        /// Not `error`: a section of that name would find the layout's error line where the field has none.
        var fieldError: String?
    }
}
