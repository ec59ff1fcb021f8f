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
        var shown = QuestionnaireSettingsFields(document.definition).page(document, language, now: environment.clock.now())
        shown.canEdit = ConsolePage.saveQuestionnaireSettings.allows(context.study)
        return try await page(shown, context,
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
            var page = fields.page(before, language, now: environment.clock.now(), errors: errors.mapValues { PortalText.text($0, language) })
            page.problems = others
            return try await self.page(page, context, status: .unprocessableContent, error: PortalText.text("console.error.fields", language))
        }
        let path = "/console/studies/\(before.studyId)/questionnaires/\(before.id)/settings"
        do {
            guard try await administration(context).updateQuestionnaire(document, from: before) != nil else {
                return context.console.base.redirect(to: path + "?notice=settingsUnchanged")
            }
        } catch let error as APIError {
            var page = fields.page(before, language, now: environment.clock.now())
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
    var endOnDay = "", gap = "", shift = ""
    /// Each weekday's window as typed, Monday first; both empty: no prompts that day.
    var from = Array(repeating: "", count: 7), to = Array(repeating: "", count: 7)
    /// Whether the definition names its windows (otherwise 08:00–22:00 every day is shown, and kept unnamed when saved so).
    var windowsNamed = false
    /// The fields of this issue's settings a form left out altogether (an older page still open):
    /// those keep the definition's values instead of being cleared.
    var omitted = Set<String>()
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
            endOnDay = schedule.endOnDay.map(String.init) ?? ""
            gap = schedule.minimumGapMinutes.map(String.init) ?? ""
            shift = schedule.windowShiftMinutes.map(String.init) ?? ""
            windowsNamed = schedule.windows != nil
        }
        for (day, window) in (definition.schedule?.week ?? Array(repeating: QuestionnaireSchedule.standardWindow, count: 7)).enumerated() {
            from[day] = window.map { PromptWindow.time($0.lowerBound) } ?? ""
            to[day] = window.map { PromptWindow.time($0.upperBound) } ?? ""
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
        (endOnDay, gap, shift) = (value("endOnDay"), value("gap"), value("shift"))
        from = PromptWindow.weekdayNames.map { value("from-\($0)") }
        to = PromptWindow.weekdayNames.map { value("to-\($0)") }
        windowsNamed = form["windowsNamed"] == "yes"
        omitted = Set(["endOnDay", "gap", "shift"].filter { form.fields[$0] == nil })
        if !form.fields.keys.contains(where: { $0.hasPrefix("from-") || $0.hasPrefix("to-") }) { omitted.insert("windows") }
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
        let before = definition.schedule
        func kept<T>(_ field: String, _ current: T?, _ read: () -> T?) -> T? { omitted.contains(field) ? current : read() }
        let endOnDay = kept("endOnDay", before?.endOnDay) { number(self.endOnDay, "endOnDay") }
        let gap = kept("gap", before?.minimumGapMinutes) { number(self.gap, "gap") }
        let shift = kept("shift", before?.windowShiftMinutes) { number(self.shift, "shift") }
        let windows = kept("windows", before?.windows) { self.windows(&errors) }
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
                                                        every: every, amount: amount, startOnDay: startOnDay, endOnDay: endOnDay,
                                                        windows: windows, minimumGapMinutes: gap, windowShiftMinutes: shift)
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

    /// The windows typed, grouped by equal times; nil when they are the standard 08:00–22:00 on
    /// every day of a definition that named none. A day with one time, a time that is not `HH:MM`
    /// or an end before the start is an error of the field `windows`.
    private func windows(_ errors: inout [String: String]) -> [PromptWindow]? {
        var week: [ClosedRange<Int>?] = []
        for (start, end) in zip(from, to) {
            if start.isEmpty, end.isEmpty { week.append(nil); continue }
            guard let first = PromptWindow.minutes(start), let last = PromptWindow.minutes(end), first < last else {
                errors["windows"] = "console.qsettings.error.windows"
                return nil
            }
            week.append(first...last)
        }
        if !windowsNamed, week == Array(repeating: QuestionnaireSchedule.standardWindow, count: 7) { return nil }
        return PromptWindow.grouped(week)
    }

    /// The form field a validator problem belongs to, nil for one no field of this form causes.
    static func field(of path: String) -> String? {
        if path.hasPrefix("schedule.windows") { return "windows" }
        return switch path {
        case "schedule": "frequency"
        case "schedule.at": "at"
        case "schedule.start": "start"
        case "schedule.end": "end"
        case "schedule.every": "every"
        case "schedule.amount": "amount"
        case "schedule.startOnDay": "startOnDay"
        case "schedule.endOnDay": "endOnDay"
        case "schedule.minimumGapMinutes": "gap"
        case "schedule.windowShiftMinutes": "shift"
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
        case .dateRangeNotIncreasing? where field == "endOnDay": "console.qsettings.error.endOnDay"
        case .dateRangeNotIncreasing?: "console.qsettings.error.endBeforeStart"
        case .promptsOverlap?: "console.qsettings.error.gapOverlap"
        case .promptsDoNotFit?: "console.qsettings.error.doNotFit"
        case .scheduleIncomplete?: "console.qsettings.error.atMissing"
        default: "console.qsettings.error.\(field.hasPrefix("message") ? "message" : field)"
        }
    }

    func page(_ document: QuestionnaireDocument, _ language: String, now: Date, errors: [String: String] = [:]) -> ConsoleQuestionnaireSettingsPage {
        func choices(_ values: [String], _ chosen: String, _ prefix: String) -> [ConsoleSettingsPage.Choice] {
            values.map { .init(value: $0, label: PortalText.text("\(prefix).\($0.isEmpty ? "none" : $0)", language), chosen: $0 == chosen) }
        }
        let preview = Self.preview(document, language, now: now)
        return ConsoleQuestionnaireSettingsPage(
            id: document.id, version: document.version, title: document.definition.title.text(in: language),
            frequencies: choices([""] + QuestionnaireSchedule.Frequency.allCases.map(\.rawValue), frequency, "console.qsettings.frequency"),
            timings: choices(QuestionnaireSchedule.Timing.allCases.map(\.rawValue), timing, "console.qsettings.timing"),
            at: at, start: start, end: end, every: every, amount: amount, startOnDay: startOnDay, endOnDay: endOnDay, gap: gap, shift: shift,
            days: PromptWindow.weekdayNames.enumerated().map { index, code in
                .init(code: code, name: PortalText.text("console.weekday.\(code)", language), from: from[index], to: to[index])
            },
            windowsNamed: windowsNamed,
            preview: preview ?? [], hasPreview: preview != nil,
            scheduleChangeable: scheduleChangeable, completionWindow: completionWindow, lateAnswers: lateAnswers,
            defaultWindow: PromptTiming.defaultCompletionWindowMinutes,
            messages: Self.languages(document.definition).map {
                .init(code: $0, language: ConsoleRoutes.languageName($0, language), text: messages[$0] ?? "", fieldError: errors["message-\($0)"])
            },
            errors: errors)
    }
}

extension QuestionnaireSettingsFields {
    /// The first week of someone joining today, drawn by ``QuestionnaireSchedule/preview(seed:joinedOnDayNumber:days:completionWindowMinutes:)``
    /// with a seed of the study and questionnaire; nil when the stored schedule is not daily.
    static func preview(_ document: QuestionnaireDocument, _ language: String, now: Date) -> [ConsoleQuestionnaireSettingsPage.PreviewDay]? {
        let definition = document.definition
        guard let days = definition.schedule?.preview(
            seed: PromptDraw.seed(study: document.studyId, questionnaire: document.id, joinedAt: now), joinedOnDayNumber: Int((now.timeIntervalSince1970 / 86_400).rounded(.down)),
            completionWindowMinutes: definition.completionWindowMinutes ?? PromptTiming.defaultCompletionWindowMinutes) else { return nil }
        return days.map { day in
            .init(day: day.dayAfterJoining, weekday: PortalText.text("console.weekday.\(PromptWindow.weekdayNames[day.weekday - 1])", language),
                  times: day.minutes.isEmpty ? PortalText.text("console.qsettings.previewNone", language) : day.minutes.map(PromptWindow.time).joined(separator: ", "))
        }
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
    var endOnDay: String
    var gap: String
    var shift: String
    var days: [Day]
    var windowsNamed: Bool
    /// The first week of a participant joining today; empty when the schedule is not daily or its prompts do not fit.
    var preview: [PreviewDay]
    var hasPreview: Bool
    var scheduleChangeable: Bool
    var completionWindow: String
    var lateAnswers: String
    var defaultWindow: Int
    var messages: [Message]
    /// The line beside each field that is wrong, by field name.
    var errors: [String: String]
    /// Problems no field of the form explains (the validator's own lines).
    var problems: [String] = []
    /// Whether the member may save (a viewer reads the settings, the fields disabled).
    var canEdit = true

    struct Day: Sendable {
        var code: String
        var name: String
        var from: String
        var to: String
    }

    struct PreviewDay: Sendable {
        var day: Int
        var weekday: String
        var times: String
    }

    struct Message: Sendable {
        var code: String
        var language: String
        var text: String
        /// Not `error`: a section of that name would find the layout's error line where the field has none.
        var fieldError: String?
    }
}
