import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tys sheets [ID] [--json]`: the person's answer sheets ("my answer sheets", thesis FR19),
/// newest first, from every device, with whether each has reached the server.
struct SheetsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sheets", abstract: L("tys.sheets.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tys.sheets.id"), valueName: "ID")) var id: String?
    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        let service = context.studyQuestionnaires
        if let id { _ = try service.status(of: id) }  // an unknown id is one clear line, not an empty list
        let sheets = try service.sheets(questionnaireID: id)
        let views = try sheets.map { try SheetView(sheet: $0, service: service, localizer: context.localizer) }
        if output.isRequested(in: context) {
            try context.console.json(views)
            return
        }
        guard !views.isEmpty else {
            context.console.line(L("tys.sheets.none"))
            return
        }
        context.console.table(TextTable(columns: [.left, .left, .left, .left], header: [
            L("tys.sheets.column.sheet"), L("tys.sheets.column.finished"), L("tys.sheets.column.questionnaire"),
            L("tys.sheets.column.upload"),
        ], rows: views.map { view in
            [String(view.id.prefix(8)), view.finishedAt.map(OffsetTimestamp.minuteText) ?? "—", view.title, view.uploadShortText]
        }))
        context.console.line(L("tys.sheets.hint"))
    }
}

/// `tys sheet SHEET`: one sheet with every answer as the person saw it (item text and the text
/// of the chosen option, not its code), its sensor readings and its upload state.
struct SheetCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sheet", abstract: L("tys.sheet.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tys.sheet.id"), valueName: "SHEET")) var id: String
    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        let service = context.studyQuestionnaires
        let view = try SheetView(sheet: try service.sheet(matching: id), service: service, localizer: context.localizer)
        if output.isRequested(in: context) {
            try context.console.json(view)
            return
        }
        context.console.line("\(view.title) (\(view.questionnaire) v\(view.version))")
        context.console.line(L("tys.sheet.header", ["id": view.id, "finished": view.finishedAt ?? "—", "upload": view.uploadText]))
        context.console.table(TextTable(columns: [.init(maximumWidth: 48), .left],
                                        rows: view.answers.map { [$0.question, $0.answer] }))
        if let noise = view.noiseDBFS {
            context.console.line(L("tys.sheet.noise", ["dbfs": context.localizer.language.number(noise, fractionDigits: 1)]))
        }
        if let location = view.location {
            var line = L("tys.sheet.location", [
                "latitude": context.localizer.language.number(location.latitude, fractionDigits: 5),
                "longitude": context.localizer.language.number(location.longitude, fractionDigits: 5),
            ])
            if let altitude = location.altitudeMeters { line += " " + L("tys.sheet.altitude", ["meters": String(format: "%.0f", altitude)]) }
            context.console.line(line)
        }
    }
}

/// A sheet in the words the person saw, for `sheets` and `sheet` (and their `--json`).
struct SheetView: Encodable {
    struct Answer: Encodable {
        let label: String
        let question: String
        let answer: String
    }

    let id: String
    let questionnaire: String
    let version: Int
    let title: String
    let startedAt: String
    let finishedAt: String?
    /// `uploaded`, `waiting`, `refused`, `deviceOnly` or `erasedFromServer` (``SheetUpload``).
    let upload: String
    let refusedBecause: String?
    /// What a waiting sheet waits for (``SheetUpload/Wait``).
    let waitingFor: String?
    let answers: [Answer]
    let noiseDBFS: Double?
    let location: LocationReading?
    /// The upload state in the person's words, whole and for a table (not in `--json`).
    let uploadText: String
    let uploadShortText: String

    enum CodingKeys: String, CodingKey {
        case id, questionnaire, version, title, startedAt, finishedAt, upload, refusedBecause, waitingFor, answers, noiseDBFS, location
    }

    init(sheet stored: StudyQuestionnaires.Sheet, service: StudyQuestionnaires, localizer: Localizer) throws {
        let sheet = stored.sheet
        let text = QuestionnaireText(localizer: localizer)
        let definition = try service.definition(answeredBy: sheet)
        id = sheet.id.uuidString.lowercased()
        questionnaire = sheet.questionnaireID
        version = sheet.questionnaireVersion
        title = definition.map { text.text($0.title) } ?? sheet.questionnaireID
        startedAt = sheet.startedAt.text
        finishedAt = sheet.endedAt?.text
        upload = stored.upload.state
        refusedBecause = stored.upload.refusedBecause
        waitingFor = stored.upload.waitingFor
        uploadText = stored.upload.text
        uploadShortText = stored.upload.shortText
        noiseDBFS = sheet.sensors?.microphone?.dbfs
        location = sheet.sensors?.location
        // In the definition's order; answers to items the definition no longer has come last.
        var answers: [Answer] = []
        var shown = Set<String>()
        for item in definition?.items ?? [] {
            guard let answer = sheet.answers[item.label] else { continue }
            shown.insert(item.label)
            answers.append(Answer(label: item.label, question: text.text(item.text), answer: text.describe(answer.value, for: item, withCodes: false)))
        }
        for (label, answer) in sheet.answers.sorted(by: { $0.key < $1.key }) where !shown.contains(label) {
            answers.append(Answer(label: label, question: label, answer: "\(answer.value)"))
        }
        self.answers = answers
    }

}
