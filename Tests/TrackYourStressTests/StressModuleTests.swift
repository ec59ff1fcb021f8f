import Foundation
import Testing
@testable import TrackYourStress
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Track Your Stress: questionnaires, answering and sheets", .timeLimit(.minutes(10)))
struct StressModuleTests {
    @Test("offline, the demo study is listed: the one-time questionnaire to do, the repeating ones after it")
    func listing() throws {
        let fixture = try StressFixture()
        let result = fixture.run("tys questionnaires")
        #expect(result.succeeded)
        #expect(result.out.contains("tys-demo-about-you"))
        #expect(result.out.contains("to do"))
        #expect(result.out.contains("comes after the one-time questionnaires (tys-demo-about-you)"))
        let json = fixture.run("tys questionnaires --json").out
        let rows = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [[String: Any]]
        #expect(rows.map { $0["id"] as! String } == ["tys-demo-about-you", "tys-demo-daily", "tys-demo-weekly", "tys-demo-monthly"])
        #expect(rows.map { $0["state"] as! String } == ["toDo", "afterOneTime", "afterOneTime", "afterOneTime"])
        #expect(rows[1]["scheduleChangeable"] as? Bool == true && rows[3]["scheduleChangeable"] as? Bool == false)
    }

    @Test("fill offers the one-time questionnaire first, refuses the daily one before it, then offers the daily one")
    func orderingAndFill() throws {
        let fixture = try StressFixture(input: StressFixture.aboutYou + StressFixture.daily)
        let early = fixture.run("tys fill tys-demo-daily")
        #expect(!early.succeeded)
        #expect(early.err.contains("tys-demo-about-you") && early.err.split(separator: "\n").count == 1)
        #expect(fixture.run("tys fill").succeeded)
        let again = fixture.run("tys fill tys-demo-about-you")
        #expect(!again.succeeded && again.err.contains("done"))
        let daily = fixture.run("tys fill")
        #expect(daily.succeeded)
        #expect(daily.out.contains("stays on this device"))
        let sheets = try fixture.context.studyQuestionnaires.sheets()
        #expect(sheets.map(\.sheet.questionnaireID) == ["tys-demo-daily", "tys-demo-about-you"])
        #expect(sheets.allSatisfy { $0.upload == .deviceOnly })
        // Bundled-study sheets are not queued: no server knows their questionnaires.
        #expect(try fixture.harness.queued().isEmpty)
    }

    @Test("a sheet shows each answer as the person saw it: item text and option text, not codes")
    func sheetView() throws {
        let fixture = try StressFixture(input: StressFixture.aboutYou + StressFixture.daily)
        fixture.run("tys fill")
        fixture.run("tys fill")
        let list = fixture.run("tys sheets").out
        #expect(list.contains("Your stress right now") && list.contains("About you"))
        let id = try #require(try fixture.context.studyQuestionnaires.sheets().first?.sheet.id.uuidString.lowercased())
        let shown = fixture.run("tys sheet \(id.prefix(8))")
        #expect(shown.succeeded)
        #expect(shown.out.contains("What is stressing you right now?"))
        #expect(shown.out.contains("work, studies or school; family"))
        let json = try JSONSerialization.jsonObject(with: Data(fixture.run("tys sheet \(id) --json").out.utf8)) as! [String: Any]
        let answers = json["answers"] as! [[String: String]]
        #expect(answers.first { $0["label"] == "stressors" }?["answer"] == "work, studies or school; family")
        #expect(fixture.run("tys sheet zzzz").err.contains("zzzz"))
    }

    @Test("a server study's sheet is queued for upload once and listed as not uploaded until then")
    func serverSheetQueued() throws {
        let fixture = try StressFixture(input: ["55", "save"])
        let definition = QuestionnaireDefinition(
            id: "pss-daily", version: 1, title: "Daily stress", kind: .repeating,
            schedule: QuestionnaireSchedule(frequency: .daily, timing: .between),
            items: [QuestionnaireItem(label: "stress", text: "Stress?", required: true, element: .slider(SliderRange(min: 0, max: 100, step: 1)))])
        try fixture.joinServerStudy([(definition, true)])
        #expect(fixture.run("tys fill").succeeded)
        let queued = try fixture.harness.queued()
        #expect(queued.count == 1 && queued.values.first?.kind == "answerSheet")
        #expect(fixture.run("tys sheets").out.contains("waiting (log in)"), "nobody is logged in on this device")
    }

    @Test("a deactivated questionnaire is listed as such and refused")
    func deactivated() throws {
        let fixture = try StressFixture()
        let definition = QuestionnaireDefinition(
            id: "gone", version: 1, title: "Gone", kind: .repeating,
            schedule: QuestionnaireSchedule(frequency: .daily, timing: .between),
            items: [QuestionnaireItem(label: "x", text: "X?", element: .slider(SliderRange(min: 0, max: 10, step: 1)))])
        try fixture.joinServerStudy([(definition, false)])
        #expect(fixture.run("tys questionnaires").out.contains("deactivated"))
        let refused = fixture.run("tys fill gone")
        #expect(!refused.succeeded && refused.err.contains("deactivated"))
        #expect(fixture.run("tys fill").out.contains("Nothing is due"))
    }

    @Test("the standalone program needs an account: its commands say so in one line, about still works")
    func standaloneNeedsAccount() throws {
        let fixture = try StressFixture(program: .standalone)
        let refused = fixture.run("questionnaires")
        #expect(!refused.succeeded)
        #expect(refused.err.contains("track-your-stress needs an account"))
        #expect(fixture.run("about").succeeded)
    }
}
