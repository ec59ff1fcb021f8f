import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: clinical questionnaires are filled out completely and locked once completed", .timeLimit(.minutes(10)))
struct QuestionnaireFillTests {
    @Test("offline, the bundled clinical study is listed: one-time questionnaires first, the monthly ones after them, none checked")
    func listingOffline() throws {
        let fixture = try TNFixture()
        let rows = try QuestionnaireAnswers.rows(fixture.run("tn questionnaires --json").out)
        #expect(rows.map { $0["id"] as? String } == ["tn-profile", "tn-case-history", "tinnitus-distress-12", "tn-worst-symptom"])
        #expect(rows.map { $0["kind"] as? String } == ["oneTime", "oneTime", "repeating", "repeating"])
        #expect(rows.map { $0["state"] as? String } == ["toDo", "toDo", "afterOneTime", "afterOneTime"])
        #expect(rows.allSatisfy { $0["completed"] as? Bool == false })
        let lines = fixture.run("tn questionnaires").out.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(lines.count == 4 && lines.allSatisfy { $0.hasPrefix("  › ") })
    }

    @Test("a completed questionnaire gets a check mark with its date; a monthly one says from when it can be filled out again")
    func checkMarks() throws {
        let fixture = try TNFixture(input: QuestionnaireAnswers.oneTime + QuestionnaireAnswers.distressSevere)
        for _ in 0..<3 { #expect(fixture.run("tn fill").succeeded) }
        let text = fixture.run("tn questionnaires").out
        let profileLine = try #require(text.split(separator: "\n").first { $0.contains("(tn-profile)") })
        #expect(profileLine.hasPrefix("  ✓ ") && profileLine.contains("completed on 2026-11-23"))
        let distressLine = try #require(text.split(separator: "\n").first { $0.contains("(tinnitus-distress-12)") })
        #expect(distressLine.hasPrefix("  ✓ ") && distressLine.contains("next from 2026-12-01"))
        let worstLine = try #require(text.split(separator: "\n").first { $0.contains("(tn-worst-symptom)") })
        #expect(worstLine.hasPrefix("  › ") && worstLine.contains("open now"))
        let rows = try QuestionnaireAnswers.rows(fixture.run("tn questionnaires --json").out)
        let distress = try #require(rows.first { $0["id"] as? String == "tinnitus-distress-12" })
        #expect(distress["completed"] as? Bool == true && distress["locked"] as? Bool == true)
        #expect(distress["completedOn"] as? String == "2026-11-23" && distress["nextFrom"] as? String == "2026-12-01")
        #expect(rows.first { $0["id"] as? String == "tn-worst-symptom" }?["nextFrom"] as? String == "2026-11-23")
    }

    @Test("a sheet is saved only when every question is answered: save is refused naming the open one, and nothing is kept")
    func savedOnlyWhenComplete() throws {
        // The second question left for later, then save: refused; the input ends.
        let fixture = try TNFixture(input: ["3", "-", "1", "3", "save"])
        let result = fixture.run("tn fill tn-profile")
        #expect(!result.succeeded)
        #expect(result.out.contains("Not saved yet, these still need an answer: 2 “Your gender”"))
        #expect(result.err.contains("Your answers to \"About you\" so far are kept"))
        #expect(try fixture.store.all(CompletedQuestionnaire.self).isEmpty)
        #expect(try fixture.context.studyQuestionnaires.sheets().isEmpty)
        #expect(try fixture.harness.queuedRecords().isEmpty)
        #expect(try QuestionnaireAnswers.rows(fixture.run("tn questionnaires --json").out).first?["hasDraft"] as? Bool == true)
    }

    @Test("an item its definition leaves optional must be answered too")
    func optionalItemsRequired() throws {
        let fixture = try TNFixture(input: ["-", "save"])
        try QuestionnaireAnswers.joinServerStudy(fixture, [try QuestionnaireAnswers.withUnknownType()])
        let result = fixture.run("tn fill clinic-check")
        #expect(!result.succeeded)
        #expect(result.out.contains("Not saved yet, these still need an answer: 1 “How loud is it today?”"))
        #expect(try fixture.store.all(CompletedQuestionnaire.self).isEmpty)
    }

    @Test("the completed record is kept and queued in the transaction that keeps the sheet")
    func completedRecordQueuedWithSheet() throws {
        let fixture = try TNFixture(input: QuestionnaireAnswers.profile)
        let result = fixture.run("tn fill")
        #expect(result.succeeded)
        #expect(result.out.contains("Saved on 2026-11-23 and locked as completed"))
        let sheets = try fixture.context.studyQuestionnaires.sheets()
        let sheet = try #require(sheets.first?.sheet)
        #expect(sheets.count == 1 && sheet.questionnaireID == "tn-profile")
        let completed = try fixture.store.all(CompletedQuestionnaire.self)
        #expect(completed.map(\.id) == [sheet.id.uuidString.lowercased()])
        #expect(completed.first?.sheet == sheet)
        let queued = try fixture.harness.queuedRecords()
        let record = try #require(queued["tn/completed:\(sheet.id.uuidString.lowercased())"])
        #expect(record.payload != nil)
        // A bundled study's sheet itself stays on the device; the record follows the person.
        #expect(try fixture.harness.queued().values.allSatisfy { $0.kind == "record" })
    }

    @Test("a server study's sheet and its completed record are both queued")
    func serverSheetAndRecordQueued() throws {
        let fixture = try TNFixture(input: ["4", "save"])
        try QuestionnaireAnswers.joinServerStudy(fixture, [try QuestionnaireAnswers.withUnknownType()])
        #expect(fixture.run("tn fill clinic-check").succeeded)
        let sheet = try #require(try fixture.context.studyQuestionnaires.sheets().first?.sheet)
        #expect(try fixture.harness.queued()["sheet:\(sheet.id.uuidString)"]?.kind == "answerSheet")
        #expect(try fixture.harness.queuedRecords()["tn/completed:\(sheet.id.uuidString.lowercased())"] != nil)
    }

    @Test("a completed one-time questionnaire is refused in one line with its date; a monthly one again next month, as a new entry")
    func lockedRefusal() throws {
        let fixture = try TNFixture(input: QuestionnaireAnswers.oneTime + QuestionnaireAnswers.distressSevere
                                    + QuestionnaireAnswers.distressModerate)
        #expect(fixture.run("tn fill tn-profile").succeeded)
        let again = fixture.run("tn fill tn-profile")
        #expect(!again.succeeded)
        #expect(again.err.split(separator: "\n").count == 1)
        #expect(again.err.contains("About you was completed on 2026-11-23; completed questionnaires are locked."))
        #expect(fixture.run("tn fill tn-case-history").succeeded)
        #expect(fixture.run("tn fill tinnitus-distress-12").succeeded)
        let sameMonth = fixture.run("tn fill tinnitus-distress-12")
        #expect(!sameMonth.succeeded && sameMonth.err.contains("It can be filled out again from 2026-12-01"))
        fixture.harness.clock.advance(by: 9 * 86_400)  // Wednesday 2 December
        #expect(fixture.run("tn fill tinnitus-distress-12").succeeded)
        let distress = try fixture.store.all(CompletedQuestionnaire.self).filter { $0.questionnaireID == "tinnitus-distress-12" }
        #expect(distress.count == 2 && Set(distress.map(\.id)).count == 2)
        // The first entry is untouched by the second.
        #expect(distress.contains { $0.completedAt == TNFixture.now && $0.sheet.values["noise-wears-me-out"] == .integer(2) })
    }

    @Test("a completed record pulled from another device makes the questionnaire completed and locked here too")
    func pulledCompletedCounts() throws {
        let fixture = try TNFixture()
        let answeredAt = TNFixture.now.addingTimeInterval(-3 * 86_400)
        let stamp = OffsetTimestamp(answeredAt, in: ModuleHarness.berlin)
        let values: [String: AnswerValue] = ["age-group": .integer(2), "gender": .integer(4), "noisy-work": .integer(4), "care-so-far": .integer(1)]
        let sheet = AnswerSheet(id: UUID(), questionnaireID: "tn-profile", questionnaireVersion: 1,
                                answers: values.mapValues { Answer(value: $0, answeredAt: stamp) },
                                startedAt: stamp, endedAt: stamp, clientVersion: "other device", owner: .tn)
        let outcomes = try fixture.harness.pull(records: [ModuleHarness.record(CompletedQuestionnaire(sheet: sheet), owner: .tn, at: answeredAt)])
        #expect(outcomes == [.applied])
        let rows = try QuestionnaireAnswers.rows(fixture.run("tn questionnaires --json").out)
        let profile = try #require(rows.first { $0["id"] as? String == "tn-profile" })
        #expect(profile["state"] as? String == "done" && profile["completed"] as? Bool == true)
        #expect(profile["completedOn"] as? String == "2026-11-20")
        let refused = fixture.run("tn fill tn-profile")
        #expect(!refused.succeeded && refused.err.contains("completed on 2026-11-20; completed questionnaires are locked"))
    }

    @Test("a question of a type this version does not know is shown as not supported and skipped; the rest is saved")
    func unknownElementTypeDegrades() throws {
        let fixture = try TNFixture(input: ["6", "save"])
        try QuestionnaireAnswers.joinServerStudy(fixture, [try QuestionnaireAnswers.withUnknownType()])
        let result = fixture.run("tn fill clinic-check")
        #expect(result.succeeded, "\(result.err)")
        #expect(result.out.contains("uses the element type \"drawing\", which this version does not support"))
        let completed = try #require(try fixture.store.all(CompletedQuestionnaire.self).first)
        #expect(completed.sheet.values == ["loudness": .integer(6)])
        let id = HealthRecordID.short(completed.id)
        let shown = fixture.run("tn completed show \(id)")
        #expect(shown.succeeded)
        #expect(shown.out.contains("Draw where you hear it.") && shown.out.contains("this question type is not supported in this version"))
        #expect(fixture.run("tn questionnaires").out.contains("✓ "))
    }

    @Test("a completed questionnaire is shown read-only with the text of each answer")
    func completedShown() throws {
        let fixture = try TNFixture(input: QuestionnaireAnswers.profile)
        fixture.run("tn fill tn-profile")
        let list = fixture.run("tn completed")
        #expect(list.succeeded && list.out.contains("About you") && list.out.contains("2026-11-23"))
        let id = try #require(try fixture.store.all(CompletedQuestionnaire.self).first?.id)
        let shown = fixture.run("tn completed show \(id.prefix(6))")
        #expect(shown.out.contains("Completed on 2026-11-23") && shown.out.contains("locked"))
        #expect(shown.out.contains("30 to 39") && shown.out.contains("an ear, nose and throat specialist"))
        #expect(fixture.run("tn completed show zzzz").err.contains("zzzz"))
    }

    @Test("in German, the list says ausgefüllt am and the refusal is German")
    func german() throws {
        try CurrentLanguage.$scope.withValue(LockedValue(.german)) {
            let fixture = try TNFixture(input: QuestionnaireAnswers.profile)
            #expect(fixture.run("tn fill tn-profile").succeeded)
            let text = fixture.run("tn questionnaires").out
            #expect(text.contains("Zu Ihrer Person (tn-profile)") && text.contains("ausgefüllt am 2026-11-23"))
            #expect(text.contains("✓ ausgefüllt (gesperrt)"))
            #expect(fixture.run("tn fill tn-profile").err.contains("Zu Ihrer Person wurde am 2026-11-23 ausgefüllt; ausgefüllte Fragebögen sind gesperrt."))
        }
    }
}
