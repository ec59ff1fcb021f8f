import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tn questionnaires [--json]`: the clinical questionnaires with a check mark on the completed
/// ones and the day they were completed (the indicator the TinnitusNavigator thesis left for
/// later, ch. 8), each with its state and, for a repeating one, when it can be answered next.
struct QuestionnairesCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "questionnaires", abstract: L("tn.questionnaires.abstract"))
    }

    @OptionGroup var output: JSONOutput

    init() {}

    static let completedMark = "✓"
    static let openMark = "›"

    func run(in context: ModuleContext) throws {
        let questionnaires = ClinicalQuestionnaires(context: context)
        let entries = try questionnaires.entries()
        let uploads = try questionnaires.uploads()
        let timeZone = context.clock.timeZone
        let today = LocalDate(context.clock.now, in: timeZone)
        if output.isRequested(in: context) {
            try context.console.json(entries.map { entry in
                ClinicalQuestionnaireJSON(entry, today: today, timeZone: timeZone,
                                          lastUpload: entry.completions.first.map { uploads[$0.id] ?? .deviceOnly })
            })
            return
        }
        guard !entries.isEmpty else {
            context.console.line(L("tn.questionnaires.none"))
            return
        }
        let text = QuestionnaireText(localizer: context.localizer)
        var study: String?
        var rows: [[String]] = []
        func flush() {
            guard !rows.isEmpty else { return }
            context.console.table(TextTable(columns: [.left, .left, .left, .left], rows: rows, indent: 2))
            rows = []
        }
        for entry in entries {
            let questionnaire = entry.status.questionnaire
            if questionnaire.studyID != study {
                flush()
                study = questionnaire.studyID
                context.console.line(L("tn.questionnaires.study", ["title": text.text(questionnaire.studyTitle), "id": questionnaire.studyID]))
            }
            var done = ""
            if entry.isCompleted, let last = entry.lastCompleted {
                done = L("tn.questionnaires.completedOn", ["date": "\(LocalDate(last, in: timeZone))"])
                if entry.completions.count > 1 { done += " " + L("tn.questionnaires.times", count: entry.completions.count) }
                if let newest = entry.completions.first { done += " · " + (uploads[newest.id] ?? .deviceOnly).shortText }
            }
            var state = entry.status.state.text(context.localizer)
            if let next = entry.nextFrom(today: today) {
                state += " · " + (next <= today ? L("tn.questionnaires.openNow") : L("tn.questionnaires.nextFrom", ["date": "\(next)"]))
            }
            if entry.status.hasDraft { state += " · " + L("tn.questionnaires.draft") }
            rows.append([entry.isCompleted ? Self.completedMark : Self.openMark,
                         "\(text.text(entry.definition.title)) (\(entry.id))", done, state])
        }
        flush()
        context.console.line(L("tn.questionnaires.legend", ["done": Self.completedMark, "open": Self.openMark]))
    }
}

/// One questionnaire of `tn questionnaires --json`.
struct ClinicalQuestionnaireJSON: Encodable {
    let study: String
    let id: String
    let version: Int
    let title: String
    let kind: String
    let state: String
    let stateText: String
    let completed: Bool
    let locked: Bool
    /// The local day it was last completed.
    let completedOn: String?
    let completions: Int
    /// For a repeating questionnaire: the first day it can be answered (today when due).
    let nextFrom: String?
    let hasDraft: Bool
    /// Whether the newest completed entry reached the study server (``SheetUpload/state``), and
    /// what it waits for; nil when none is completed.
    let lastUpload: String?
    let lastUploadWaitingFor: String?

    init(_ entry: ClinicalQuestionnaires.Entry, today: LocalDate, timeZone: TimeZone, lastUpload: SheetUpload?) {
        self.lastUpload = lastUpload?.state
        lastUploadWaitingFor = lastUpload?.waitingFor
        study = entry.status.questionnaire.studyID
        id = entry.id
        version = entry.definition.version
        title = QuestionnaireText(localizer: CurrentLanguage.localizer).text(entry.definition.title)
        kind = entry.definition.kind.rawValue
        state = entry.status.state.key
        stateText = entry.status.state.text()
        completed = entry.isCompleted
        locked = entry.isLocked
        completedOn = entry.isCompleted ? entry.lastCompleted.map { "\(LocalDate($0, in: timeZone))" } : nil
        completions = entry.completions.count
        nextFrom = entry.nextFrom(today: today).map { "\($0)" }
        hasDraft = entry.status.hasDraft
    }
}
