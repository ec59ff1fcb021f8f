import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// The core's study-questionnaire service: what the server's list does to the device, the
/// states, and the ordering rule (Track Your Stress thesis FR10/FR11).
@Suite("Study questionnaires", .timeLimit(.minutes(10)))
struct StudyQuestionnaireServiceTests {
    /// Monday 2026-11-23 10:00 in Berlin.
    static let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 10, minute: 0), in: ModuleHarness.berlin)

    static func definition(_ id: String, version: Int = 1, repeating: Bool = false,
                           schedule: QuestionnaireSchedule? = nil) -> QuestionnaireDefinition {
        QuestionnaireDefinition(id: id, version: version, title: LocalizedText(stringLiteral: "Questionnaire \(id)"),
                                kind: repeating ? .repeating : .oneTime,
                                schedule: repeating ? (schedule ?? QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 2)) : schedule,
                                items: [QuestionnaireItem(label: "stress", text: "How stressed?", required: true,
                                                          element: .slider(SliderRange(min: 0, max: 100, step: 1)))])
    }

    static func entry(_ definition: QuestionnaireDefinition, study: String = "s1", module: String = "tys", active: Bool = true,
                      joinedAt: String = "2026-11-20T09:00:00+01:00") throws -> AssignedQuestionnaire {
        let json = try JSONDecoder().decode(JSONValue.self, from: try APIClient.encoder.encode(definition))
        return AssignedQuestionnaire(id: definition.id, version: definition.version, studyId: study, module: module,
                                     active: active, joinedAt: joinedAt, definition: json)
    }

    /// A harness whose person has joined `studies`.
    static func harness(studies: [String] = ["s1"]) throws -> ModuleHarness {
        let harness = try ModuleHarness([], now: now)
        for (index, study) in studies.enumerated() {
            try harness.services.studies.recordJoined(StudyDescriptor(id: study, title: LocalizedText(stringLiteral: "Study \(study)"), modules: ["tys"]),
                                                      at: now.addingTimeInterval(Double(index)))
        }
        return harness
    }

    @discardableResult
    static func apply(_ harness: ModuleHarness, _ entries: [AssignedQuestionnaire], etag: String? = "\"e1\"") throws -> StudyQuestionnaireStore.Outcome {
        try harness.database.writer.write { db in
            try StudyQuestionnaireStore.apply(AssignedQuestionnaireList(questionnaires: entries), etag: etag, in: db)
        }
    }

    /// A sheet from another device. It is the shell's here (this harness has no modules), which
    /// also shows that a questionnaire counts as answered whoever keeps the sheet.
    static func answer(_ harness: ModuleHarness, _ id: String, version: Int = 1, at date: Date) throws {
        let stamp = OffsetTimestamp(date, in: ModuleHarness.berlin)
        let sheet = AnswerSheet(id: UUID(), questionnaireID: id, questionnaireVersion: version,
                                answers: ["stress": Answer(value: .number(50), answeredAt: stamp)],
                                startedAt: stamp, endedAt: stamp, clientVersion: "test", owner: .shell)
        try harness.pull(sheets: [sheet])
    }

    static func states(_ harness: ModuleHarness) throws -> [String: StudyQuestionnaireState] {
        let statuses = try StudyQuestionnaires(services: harness.services, module: .tys).statuses()
        return Dictionary(uniqueKeysWithValues: statuses.map { ($0.id, $0.state) })
    }

    @Test("a list is stored with its ETag; a changed questionnaire replaces the old one; one missing from the list disappears")
    func applyList() throws {
        let harness = try Self.harness()
        var outcome = try Self.apply(harness, [try Self.entry(Self.definition("a")), try Self.entry(Self.definition("b", repeating: true))])
        #expect(outcome.changed == 2 && outcome.removed == 0 && outcome.problems.isEmpty)
        #expect(try ETagStore(database: harness.database).etag(for: "questionnaires") == "\"e1\"")
        outcome = try Self.apply(harness, [try Self.entry(Self.definition("a", version: 2))], etag: "\"e2\"")
        #expect(outcome.changed == 1 && outcome.removed == 1)
        let service = StudyQuestionnaires(services: harness.services, module: .tys)
        #expect(try service.questionnaires().map { "\($0.id)@\($0.version)" } == ["a@2"])
        // The version answered before stays readable for old sheets.
        #expect(try ServerQuestionnaires(database: harness.database).definition(id: "a", version: 1) != nil)
        #expect(try ETagStore(database: harness.database).etag(for: "questionnaires") == "\"e2\"")
    }

    @Test("an empty list empties the device's questionnaires and keeps its ETag")
    func emptyList() throws {
        let harness = try Self.harness()
        try Self.apply(harness, [try Self.entry(Self.definition("a"))])
        let outcome = try Self.apply(harness, [], etag: "\"empty\"")
        #expect(outcome.removed == 1)
        #expect(try StudyQuestionnaires(services: harness.services, module: .tys).questionnaires().isEmpty)
        #expect(try ETagStore(database: harness.database).etag(for: "questionnaires") == "\"empty\"")
    }

    @Test("a questionnaire that does not validate is refused alone, named in one line, and its previous version stays")
    func invalidRefused() throws {
        let harness = try Self.harness()
        try Self.apply(harness, [try Self.entry(Self.definition("a")), try Self.entry(Self.definition("b"))])
        var broken = try Self.entry(Self.definition("a", version: 2))
        guard case .object(var object) = broken.definition else { Issue.record("not an object"); return }
        object["items"] = .array([])  // a questionnaire without items does not validate
        broken.definition = .object(object)
        var unknownModule = try Self.entry(Self.definition("c"))
        unknownModule.module = "xyz"
        let outcome = try Self.apply(harness, [broken, try Self.entry(Self.definition("b", version: 2)), unknownModule])
        #expect(outcome.problems.count == 2)
        #expect(outcome.problems[0].contains("a") && outcome.problems[0].contains("s1") && !outcome.problems[0].contains("\n"))
        let kept = try StudyQuestionnaires(services: harness.services, module: .tys).questionnaires()
        #expect(kept.map { "\($0.id)@\($0.version)" } == ["a@1", "b@2"])
    }

    @Test("a one-time questionnaire is to do until answered on any device, then done for good")
    func oneTime() throws {
        let harness = try Self.harness()
        try Self.apply(harness, [try Self.entry(Self.definition("once"))])
        #expect(try Self.states(harness)["once"] == .toDo)
        try Self.answer(harness, "once", at: Self.now.addingTimeInterval(-3600))
        #expect(try Self.states(harness)["once"] == .done)
        harness.clock.advance(by: 40 * 86_400)
        #expect(try Self.states(harness)["once"] == .done)
        #expect(try StudyQuestionnaires(services: harness.services, module: .tys).next() == nil)
    }

    @Test("repeating questionnaires come after the study's one-time ones, per study")
    func orderingRule() throws {
        let harness = try Self.harness(studies: ["s1", "s2"])
        try Self.apply(harness, [
            try Self.entry(Self.definition("daily1", repeating: true)), try Self.entry(Self.definition("once1")),
            try Self.entry(Self.definition("daily2", repeating: true), study: "s2"),
        ])
        let service = StudyQuestionnaires(services: harness.services, module: .tys)
        #expect(try service.statuses().map(\.id) == ["once1", "daily1", "daily2"])
        #expect(try Self.states(harness)["daily1"] == .afterOneTime(pending: ["once1"]))
        #expect(try Self.states(harness)["daily2"] == .due(remaining: 2))  // another study: not held back
        #expect(try service.next()?.id == "once1")
        #expect(throws: UNITIError.self) { try service.requireFillable(try service.status(of: "daily1")) }
        try Self.answer(harness, "once1", at: Self.now)
        #expect(try service.next()?.id == "daily1")
    }

    @Test("a repeating questionnaire is due until its period has amount answers, then due again next period")
    func periods() throws {
        let harness = try Self.harness()
        try Self.apply(harness, [try Self.entry(Self.definition("daily", repeating: true))])
        try Self.answer(harness, "daily", at: Self.now.addingTimeInterval(-86_400))  // yesterday: another period
        #expect(try Self.states(harness)["daily"] == .due(remaining: 2))
        try Self.answer(harness, "daily", at: Self.now.addingTimeInterval(-600))
        #expect(try Self.states(harness)["daily"] == .due(remaining: 1))
        try Self.answer(harness, "daily", at: Self.now.addingTimeInterval(-60))
        #expect(try Self.states(harness)["daily"] == .answered(next: LocalDate(year: 2026, month: 11, day: 24)))
        harness.clock.advance(by: 86_400)
        #expect(try Self.states(harness)["daily"] == .due(remaining: 2))
    }

    @Test("not started, ended and deactivated questionnaires are listed and refused, with the reason in one line")
    func refusedStates() throws {
        let harness = try Self.harness()
        try Self.apply(harness, [
            try Self.entry(Self.definition("later", repeating: true,
                                           schedule: QuestionnaireSchedule(frequency: .daily, timing: .between, startOnDay: 10))),
            try Self.entry(Self.definition("over", repeating: true,
                                           schedule: QuestionnaireSchedule(frequency: .weekly, timing: .between, end: "2026-11-22"))),
            try Self.entry(Self.definition("off", repeating: true), active: false),
        ])
        let states = try Self.states(harness)
        #expect(states["later"] == .notStarted(LocalDate(year: 2026, month: 11, day: 30)))
        #expect(states["over"] == .ended(LocalDate(year: 2026, month: 11, day: 22)))
        #expect(states["off"] == .deactivated)
        let service = StudyQuestionnaires(services: harness.services, module: .tys)
        for id in ["later", "over", "off"] {
            let error = #expect(throws: UNITIError.self) { try service.requireFillable(try service.status(of: id)) }
            #expect(error?.message.contains(id) == true)
            #expect(error?.message.contains("\n") == false)
        }
        #expect(try service.next() == nil)
    }

    @Test("a deactivated questionnaire that was half answered keeps its draft and says so")
    func deactivatedKeepsDraft() throws {
        let harness = try Self.harness()
        try Self.apply(harness, [try Self.entry(Self.definition("off", repeating: true), active: false)])
        let session = QuestionnaireSession(definition: Self.definition("off", repeating: true), clock: harness.clock, language: "en")
        try QuestionnaireDraftStore(database: harness.database, clock: harness.clock)
            .save(session.draft(clientVersion: "test"), owner: .tys)
        let service = StudyQuestionnaires(services: harness.services, module: .tys)
        let status = try service.status(of: "off")
        #expect(status.hasDraft)
        let error = #expect(throws: UNITIError.self) { try service.requireFillable(status) }
        #expect(error?.message.contains("kept") == true)
        #expect(try QuestionnaireDraftStore(database: harness.database, clock: harness.clock).draft(owner: .tys, questionnaireID: "off") != nil)
    }

    @Test("questionnaires of other modules are not this module's, but their one-time ones still come first in the study")
    func otherModules() throws {
        let harness = try Self.harness()
        try Self.apply(harness, [try Self.entry(Self.definition("hear-once"), module: "tyh"),
                                 try Self.entry(Self.definition("daily", repeating: true))])
        let tys = StudyQuestionnaires(services: harness.services, module: .tys)
        #expect(try tys.questionnaires().map(\.id) == ["daily"])
        #expect(try Self.states(harness)["daily"] == .afterOneTime(pending: ["hear-once"]))
        #expect(try StudyQuestionnaires(services: harness.services, module: .tyh).questionnaires().map(\.id) == ["hear-once"])
    }

    @Test("a questionnaire refused until another module's one-time one is answered names the command that answers it")
    func refusalNamesTheCommand() throws {
        /// The standalone Track Your Stress program stands in for itself: a module with its id.
        struct Stress: UNITIModule {
            let descriptor = ModuleDescriptor(id: .tys, name: "TrackYourStress", programName: "track-your-stress", version: "1")
            func commands(for program: ProgramKind) -> [any ShellCommand.Type] { [] }
            var migrations: [ModuleMigration] { [] }
        }
        for program in ProgramKind.allCases {
            let harness = try ModuleHarness(program == .integrated ? [] : [Stress()], program: program, now: Self.now)
            try harness.services.studies.recordJoined(StudyDescriptor(id: "s1", title: "Study s1", modules: ["tys", "tn"]), at: Self.now)
            try Self.apply(harness, [try Self.entry(Self.definition("tn-once"), module: "tn"),
                                     try Self.entry(Self.definition("daily", repeating: true))])
            let tys = StudyQuestionnaires(services: harness.services, module: .tys)
            let refusal = #expect(throws: UNITIError.self) { try tys.requireFillable(try tys.status(of: "daily")) }
            let expected = program == .integrated ? "Answer them first: `tn fill tn-once`."
                                                  : "Answer them first: `tn fill tn-once` in uniti, or `fill` in tinnitus-navigator."
            #expect(refusal?.message.hasSuffix(expected) == true, "\(refusal?.message ?? "")")
        }
    }

    @Test("without a joined study, the bundled demo study's questionnaires are there, counted from the first use")
    func bundledOffline() throws {
        let harness = try ModuleHarness([], now: Self.now)
        let service = StudyQuestionnaires(services: harness.services, module: .tys)
        let questionnaires = try service.questionnaires()
        #expect(questionnaires.count == 4)
        #expect(questionnaires.allSatisfy { $0.isBundled && $0.studyID == "tys-demo" && $0.joinedAt == Self.now })
        #expect(try service.next()?.questionnaire.isRepeating == false)
        harness.clock.advance(by: 86_400)
        #expect(try service.questionnaires().first?.joinedAt == Self.now)  // kept, not moved to today
    }

    @Test("a bundled study may ask a one-time definition every month: the clinical study repeats the distress questionnaire for tn")
    func bundledRepeatingOverride() throws {
        let harness = try ModuleHarness([], now: Self.now)
        let tn = try StudyQuestionnaires(services: harness.services, module: .tn).questionnaires()
        #expect(tn.map(\.id) == ["tn-profile", "tn-case-history", "tinnitus-distress-12", "tn-worst-symptom"])
        #expect(tn.allSatisfy { $0.studyID == "tn-clinical" && $0.isBundled })
        let distress = try #require(tn.first { $0.id == "tinnitus-distress-12" })
        #expect(distress.isRepeating && distress.definition.schedule?.frequency == .monthly)
        #expect(QuestionnaireValidator.validate(distress.definition).isEmpty)
        // The shared definition itself stays one-time (the shell's baseline asks it once).
        #expect(try QuestionnaireLoader.bundled("tinnitus-distress-12").kind == .oneTime)
        // Track Your Stress still sees exactly its demo study.
        #expect(try StudyQuestionnaires(services: harness.services, module: .tys).questionnaires().map(\.studyID)
                == Array(repeating: "tys-demo", count: 4))
    }

    @Test("the shared baseline follows the studies' modules: the default study's before joining, shared by a tinnitus study, none for a mood study, a study's own list first")
    func baselineFollowsModules() throws {
        let harness = try ModuleHarness([], now: Self.now)
        let studies = harness.services.studies
        let shared = ["uniti-case-history", "tinnitus-distress-12"]
        #expect(try studies.baselineQuestionnaireIDs() == shared)
        try studies.recordJoined(StudyDescriptor(id: "mood", title: "Mood", modules: ["tys"]), at: Self.now)
        #expect(try studies.baselineQuestionnaireIDs().isEmpty, "a study without tyt or tn asks for no tinnitus baseline")
        #expect(try Baseline.shared(harness.services).open(in: harness.services).isEmpty)
        try studies.recordJoined(StudyDescriptor(id: "own", title: "Own", modules: ["tys"], baseline: ["mood-baseline"]), at: Self.now.addingTimeInterval(60))
        try studies.recordJoined(StudyDescriptor(id: "tinnitus", title: "Tinnitus", modules: ["tyt"]), at: Self.now.addingTimeInterval(120))
        #expect(try studies.baselineQuestionnaireIDs() == ["mood-baseline"] + shared)
    }
}

