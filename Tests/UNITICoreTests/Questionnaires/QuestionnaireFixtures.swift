import Foundation
import UNITIProtocol

/// Test fixtures for the questionnaire engine, read from `Tests/UNITICoreTests/Fixtures` and
/// `Configurations/Resources/Questionnaires` by path (no bundle needed).
enum QuestionnaireFixtures {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let fixtureFolder = testsFolder.appendingPathComponent("Fixtures/Questionnaires")
    static let bundledFolder = testsFolder.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Configurations/Resources/Questionnaires")

    static func data(_ name: String) throws -> Data {
        let fixture = fixtureFolder.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: fixture.path) { return try Data(contentsOf: fixture) }
        return try Data(contentsOf: bundledFolder.appendingPathComponent(name))
    }

    static func path(_ name: String) -> String {
        let fixture = fixtureFolder.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: fixture.path) { return fixture.path }
        return bundledFolder.appendingPathComponent(name).path
    }

    static func definition(_ name: String) throws -> QuestionnaireDefinition {
        try QuestionnaireDefinition.load(from: data(name))
    }

    static var distress: QuestionnaireDefinition { get throws { try definition("tinnitus-distress-12.json") } }
    static var everyElement: QuestionnaireDefinition { get throws { try definition("every-element.json") } }

    /// A small definition built in code, for tests that need one exact shape.
    static func make(_ items: [QuestionnaireItem], scoring: QuestionnaireScoring? = nil,
                     presentation: QuestionnairePresentation = .allOnOnePage) -> QuestionnaireDefinition {
        QuestionnaireDefinition(id: "test", version: 1, title: "Test", presentation: presentation,
                                items: items, scoring: scoring)
    }
}
