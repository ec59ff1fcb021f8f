import Foundation
import GRDB
import Testing
@testable import TrackYourTinnitus
import TrackYourTinnitusShared
import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Baseline questionnaires (thesis FR8, FR9)", .timeLimit(.minutes(10)))
struct BaselineTests {
    static let caseHistory = Baseline(owner: .tyt, questionnaireIDs: ["tyt-case-history"])

    @Test("the symptoms' values and phrases are the same on the device and in the portal (the shared list), and both baselines that ask for it are listed")
    func worstSymptomListsAgree() throws {
        #expect(WorstSymptom.allCases.filter { $0 != .none }.map { "\($0)" } == WorstSymptomText.names)
        #expect(WorstSymptom.allCases.map(\.rawValue) == Array(0...WorstSymptomText.names.count))
        #expect(WorstSymptomText.phraseKey(WorstSymptom.none.rawValue) == "tyt.symptom.phrase.neutral")
        for id in WorstSymptomText.askedIn {
            let definition = try QuestionnaireLoader.bundled(id)
            guard case .singleChoice(let options)? = definition.item(labeled: WorstSymptomText.itemLabel)?.element else {
                Issue.record("\(id) asks no worst symptom")
                continue
            }
            #expect(options.map(\.value) == WorstSymptom.allCases.map(\.rawValue), "\(id)")
        }
    }

    @Test("the chosen worst symptom is named by item 8 of the next check-in")
    func worstSymptom() throws {
        let fixture = try TinnitusFixture(input: ["3"] + CheckInTests.answers)
        try BaselineCommand.answer(Baseline(owner: .tyt, questionnaireIDs: [WorstSymptom.questionnaireID]), again: false, in: fixture.context)
        #expect(try WorstSymptom.chosen(fixture.services) == .worries)
        _ = try MomentaryCheckIn(context: fixture.context).run(recording: nil)
        let prompts = (fixture.services.input as! ScriptedInput).prompts
        #expect(prompts.contains { $0.contains("How strongly do you notice strong worries right now?") })
    }

    @Test("the worst symptom chosen in the shell's shared case history personalizes item 8 (integrated build)")
    func sharedBaselineWorstSymptom() throws {
        // age, gender, duration, side, course, hearing loss, treatments (optional, skipped), worst symptom
        let fixture = try TinnitusFixture(input: ["1", "3", "2", "2", "0", "no", "-", "4"] + CheckInTests.answers)
        let shared = try Baseline.shared(fixture.services)
        #expect(shared.questionnaireIDs == ["uniti-case-history", "tinnitus-distress-12"])
        try BaselineCommand.answer(Baseline(owner: shared.owner, questionnaireIDs: ["uniti-case-history"]), again: false, in: fixture.context)
        #expect(try WorstSymptom.chosen(fixture.services) == .following)
        _ = try MomentaryCheckIn(context: fixture.context).run(recording: nil)
        let prompts = (fixture.services.input as! ScriptedInput).prompts
        #expect(prompts.contains { $0.contains("trouble following conversations or music") })
    }

    @Test("the short distress scale is scored: statement 5 reversed, total and grade printed")
    func distressScore() throws {
        // 3 + 2 + 2 + 1 + reversed(0 → 3) = 11: "high" (8–11)
        let fixture = try TinnitusFixture(input: ["3", "2", "2", "1", "0"])
        try BaselineCommand.answer(Baseline(owner: .tyt, questionnaireIDs: ["tyt-distress-short"]), again: false, in: fixture.context)
        #expect(fixture.output.out.contains("Tinnitus distress: 11 (high)"))
        let sheet = try #require(try fixture.context.answerSheets.sheets(owner: .tyt, questionnaireID: "tyt-distress-short").first)
        #expect(sheet.questionnaireVersion == 2)
        #expect(!sheet.isPartial)
    }

    @Test("stopping half way keeps a synced draft, not a partial sheet; resuming completes the same sheet, which alone is uploaded")
    func partialThenResume() throws {
        let first = try TinnitusFixture(input: ["2", "1"])
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(Self.caseHistory, again: false, in: first.context) }
        #expect(try first.context.answerSheets.sheets(owner: .tyt, questionnaireID: "tyt-case-history").isEmpty)
        #expect(try Self.outbox(first) == ["record:tyt:draft:tyt-case-history"])
        let draft = try #require(try first.context.questionnaires.drafts.draft(owner: .tyt, questionnaireID: "tyt-case-history"))
        #expect(draft.sheet.answers.count == 2)

        // Same data, a later session: resume ("yes"), answer the rest.
        let later = first.later(input: ["yes", "1", "0", "no", "-"])
        try BaselineCommand.answer(Self.caseHistory, again: false, in: later)
        let sheets = try later.answerSheets.sheets(owner: .tyt, questionnaireID: "tyt-case-history")
        #expect(sheets.count == 1)
        #expect(sheets[0].id == draft.sheet.id)
        #expect(!sheets[0].isPartial)
        #expect(sheets[0].answers.count == 5)  // the optional free text was skipped
        // The finished sheet goes up once as a sheet; the draft record now carries it finished,
        // so other devices drop their draft and know the questionnaire is answered.
        #expect(try Self.outbox(first) == ["record:tyt:draft:tyt-case-history", "sheet:\(draft.sheet.id.uuidString)"])
        let record = try Self.queuedRecord(first, "draft:tyt-case-history")
        #expect(!record.deleted)
        let carried = try APIClient.decoder.decode(QuestionnaireDraft.self, from: APIClient.encoder.encode(record.payload))
        #expect(carried.sheet.id == draft.sheet.id && !carried.sheet.isPartial)
        #expect(try later.questionnaires.drafts.draft(owner: .tyt, questionnaireID: "tyt-case-history") == nil)
    }

    @Test("a draft pulled from another device is resumed here; the finished sheet then replaces the other device's draft, without a second upload")
    func continueOnAnotherDevice() throws {
        let phone = try TinnitusFixture(input: ["2", "1"])
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(Self.caseHistory, again: false, in: phone.context) }
        let phoneDraft = try Self.queuedRecord(phone, "draft:tyt-case-history")

        let laptop = try TinnitusFixture(input: ["yes", "1", "0", "no", "-"], now: phone.clock.now.addingTimeInterval(600))
        try Self.pull([phoneDraft], into: laptop)
        try BaselineCommand.answer(Self.caseHistory, again: false, in: laptop.context)
        let finished = try #require(try laptop.context.answerSheets.sheets(owner: .tyt, questionnaireID: "tyt-case-history").first)
        #expect(finished.values["duration"] == .integer(2))
        #expect(finished.values["side"] == .integer(1))
        #expect(finished.answers.count == 5)
        // Only the four remaining questions were asked after the resume question.
        #expect((laptop.services.input as! ScriptedInput).prompts.count == 5)

        let done = try Self.queuedRecord(laptop, "draft:tyt-case-history")
        try Self.pull([done], into: phone)
        #expect(try phone.context.questionnaires.drafts.draft(owner: .tyt, questionnaireID: "tyt-case-history") == nil)
        let known = try phone.context.answerSheets.sheets(owner: .tyt, questionnaireID: "tyt-case-history")
        #expect(known.map(\.id) == [finished.id])
        #expect(try Baseline(owner: .tyt, questionnaireIDs: ["tyt-case-history"]).open(in: phone.services).isEmpty)
        #expect(try Self.outbox(phone) == ["record:tyt:draft:tyt-case-history"], "the phone must not upload the laptop's sheet")

        // Starting afresh instead of resuming removes the draft on the other devices too.
        let tablet = try TinnitusFixture(input: ["2"])
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(Self.caseHistory, again: false, in: tablet.context) }
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(Self.caseHistory, again: false, in: tablet.later(input: ["no"])) }
        let tombstone = try Self.queuedRecord(tablet, "draft:tyt-case-history")
        #expect(tombstone.deleted)
        let other = try TinnitusFixture(input: ["2"], now: tablet.clock.now.addingTimeInterval(-60))
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(Self.caseHistory, again: false, in: other.context) }
        try Self.pull([tombstone], into: other)
        #expect(try other.context.questionnaires.drafts.draft(owner: .tyt, questionnaireID: "tyt-case-history") == nil)
    }

    @Test("a pulled draft older than the local one, or the device's own draft coming back, changes nothing")
    func olderDraftDoesNotOverwrite() throws {
        let phone = try TinnitusFixture(input: ["2"])
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(Self.caseHistory, again: false, in: phone.context) }
        let older = try Self.queuedRecord(phone, "draft:tyt-case-history")

        let laptop = try TinnitusFixture(input: ["3", "0", "1"], now: phone.clock.now.addingTimeInterval(600))
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(Self.caseHistory, again: false, in: laptop.context) }
        let own = try Self.queuedRecord(laptop, "draft:tyt-case-history")
        try Self.pull([older, own], into: laptop)
        let kept = try #require(try laptop.context.questionnaires.drafts.draft(owner: .tyt, questionnaireID: "tyt-case-history"))
        #expect(kept.sheet.answers.count == 3)
        #expect(kept.sheet.values["duration"] == .integer(3))
    }

    // MARK: - Helpers

    static func outbox(_ fixture: TinnitusFixture) throws -> [String] {
        try fixture.services.database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT clientID FROM core_outbox ORDER BY clientID")
        }
    }

    /// The record a device queued for the server, as the server would hand it to another device.
    static func queuedRecord(_ fixture: TinnitusFixture, _ clientID: String) throws -> ModuleRecord {
        let data = try #require(try fixture.services.database.writer.read { db in
            try Data.fetchOne(db, sql: "SELECT payload FROM core_outbox WHERE clientID = ?", arguments: ["record:tyt:\(clientID)"])
        })
        let upsert = try APIClient.decoder.decode(ModuleRecordUpsert.self, from: data)
        return ModuleRecord(moduleId: upsert.moduleId, clientId: upsert.clientId, updatedAt: upsert.updatedAt,
                            deleted: upsert.deleted ?? false, payload: upsert.payload)
    }

    /// What the sync engine does with pulled records: every draft is applied, none parked.
    static func pull(_ records: [ModuleRecord], into fixture: TinnitusFixture) throws {
        #expect(try fixture.harness.pull(records: records).allSatisfy { $0 == .applied })
    }
}

extension TinnitusFixture {
    /// Another session on the same data (a later start of the program).
    func later(input: [String]) -> ModuleContext {
        ModuleContext(services: CoreServices(
            dataDirectory: services.dataDirectory, database: services.database, console: services.console,
            input: ScriptedInput(input), clock: clock, random: harness.random, program: services.program), module: module.descriptor)
    }
}
