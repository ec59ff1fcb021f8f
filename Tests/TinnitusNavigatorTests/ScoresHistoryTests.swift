import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: scores and grades of completed questionnaires over time", .timeLimit(.minutes(10)))
struct ScoresHistoryTests {
    /// The one-time questionnaires, the distress questionnaire and the worst symptom on Monday
    /// 23 November, the distress questionnaire again on Wednesday 2 December.
    static func answeredTwice() throws -> TNFixture {
        let fixture = try TNFixture(input: QuestionnaireAnswers.oneTime + QuestionnaireAnswers.distressSevere
                                    + QuestionnaireAnswers.worstSymptom + QuestionnaireAnswers.distressModerate)
        for _ in 0..<4 {
            #expect(fixture.run("tn fill").succeeded)
            fixture.harness.clock.advance(by: 60)  // one after the other, as a person answers
        }
        fixture.harness.clock.advance(by: 9 * 86_400)
        #expect(fixture.run("tn fill tinnitus-distress-12").succeeded)
        return fixture
    }

    @Test("each completion's scores and grades, oldest first, as the definition's scoring computes them from the answers")
    func scoresByHand() throws {
        let fixture = try Self.answeredTwice()
        let rows = try QuestionnaireAnswers.rows(fixture.run("tn scores --json").out)
        let summary = rows.map { row in
            [row["date"] as? String ?? "", row["questionnaire"] as? String ?? "", row["score"] as? String ?? "",
             (row["value"] as? NSNumber).map { "\($0.intValue)" } ?? "-", row["grade"] as? String ?? "-"]
        }
        #expect(summary == [
            ["2026-11-23", "tinnitus-distress-12", "total", "15", "severe"],
            ["2026-11-23", "tinnitus-distress-12", "emotional", "8", "-"],
            ["2026-11-23", "tinnitus-distress-12", "sleep-and-hearing", "7", "-"],
            ["2026-11-23", "tn-worst-symptom", "burden", "7", "-"],
            ["2026-12-02", "tinnitus-distress-12", "total", "12", "moderate"],
            ["2026-12-02", "tinnitus-distress-12", "emotional", "6", "-"],
            ["2026-12-02", "tinnitus-distress-12", "sleep-and-hearing", "6", "-"],
        ])
        #expect(rows.first?["gradeTitle"] as? String == "severe")
    }

    @Test("a questionnaire completed twice gets a chart of its total; one completed once does not")
    func chartForRepeated() throws {
        let fixture = try Self.answeredTwice()
        let text = fixture.run("tn scores").out
        #expect(text.contains("Total distress") && text.contains("moderate"))
        #expect(text.contains("Tinnitus distress (12 statements): Total distress"))
        #expect(!text.contains("The symptom that troubles you most: Burden"))
        let one = fixture.run("tn scores tinnitus-distress-12 --json").out
        #expect(try QuestionnaireAnswers.rows(one).allSatisfy { $0["questionnaire"] as? String == "tinnitus-distress-12" })
        #expect(fixture.run("tn scores nope").err.contains("tinnitus-distress-12"))
    }

    @Test("the scores are shown right after filling out, with the grade's title")
    func scoresAfterFill() throws {
        let fixture = try TNFixture(input: QuestionnaireAnswers.oneTime + QuestionnaireAnswers.distressSevere)
        fixture.run("tn fill")
        fixture.run("tn fill")
        let result = fixture.run("tn fill")
        #expect(result.out.contains("  Total distress: 15 (severe)"))
        #expect(result.out.contains("  Emotional strain: 8"))
    }

    @Test("no completed questionnaire: one line, no table")
    func none() throws {
        let fixture = try TNFixture()
        let out = fixture.run("tn scores").out
        #expect(out.contains(L("tn.scores.none")) && !out.contains("grade"))
    }
}
