import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

@Suite("Questionnaire authoring reports", .timeLimit(.minutes(10)))
struct QuestionnaireAuthoringTests {
    let english = Localizer(language: .english)

    @Test("a valid file reports its id, version and item count, and notes unsupported types")
    func validFile() throws {
        let report = try QuestionnaireAuthoring.validate(file: QuestionnaireFixtures.path("unknown-type.json"))
        #expect(report.valid)
        #expect(QuestionnaireAuthoring.lines(for: report, localizer: english) == [
            "valid: future-elements v1, 3 items",
            "note: items[1] uses the element type \"drawing\", which this version shows as not supported",
            "note: items[2] uses the element type \"audioRecording\", which this version shows as not supported",
        ])
        let big = try QuestionnaireAuthoring.validate(file: QuestionnaireFixtures.path("generated-111-items.json"))
        #expect(QuestionnaireAuthoring.lines(for: big, localizer: english) == ["valid: demographics-111 v1, 111 items"])
    }

    @Test("an invalid file lists every problem; unreadable JSON is one problem with its position")
    func invalidFiles() throws {
        let broken = try QuestionnaireAuthoring.validate(file: QuestionnaireFixtures.path("broken-rules.json"))
        #expect(!broken.valid)
        #expect(broken.problems.count == 22)
        #expect(QuestionnaireAuthoring.lines(for: broken, localizer: english) == broken.problems)
        let syntax = try QuestionnaireAuthoring.validate(file: QuestionnaireFixtures.path("broken-syntax.json"))
        #expect(syntax.problems == ["not valid JSON at line 5, column 31: invalid value"])
    }

    @Test("a missing file is one error naming the file")
    func missingFile() {
        #expect {
            try QuestionnaireAuthoring.validate(file: "/nonexistent/q.json")
        } throws: { error in
            // The language may be either (tests run in parallel); the file and the reason are in both.
            let message = (error as? UNITIError)?.message ?? ""
            return message.contains("/nonexistent/q.json") && message.contains("No such file or directory")
        }
    }
}
