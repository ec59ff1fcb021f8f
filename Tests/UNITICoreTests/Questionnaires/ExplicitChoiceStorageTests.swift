import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

/// Answers given with explicit choices on the terminal widgets are stored exactly as they were
/// before the widgets stopped choosing for the person (issue 29, point 2): the stored sheet's
/// JSON is compared byte for byte with what the earlier widgets stored for the same keys. Only
/// the sheet's random id and the program's version are put aside.
@Suite("Questionnaires: answers chosen explicitly store byte for byte as before", .timeLimit(.minutes(10)))
struct ExplicitChoiceStorageTests {
    /// Runs the every-element questionnaire with `keys` (and `lines` for text and date), stores
    /// the sheet as a module would, and returns its stored JSON with id and version put aside.
    static func storedJSON(keys: [Key], lines: [String]) throws -> String {
        let harness = try QuestionnaireHarness(lines: lines)
        let scripted = ScriptedKeys(keys)
        let result = try harness.engine(keys: scripted).answer(QuestionnaireFixtures.everyElement, owner: "tys")
        #expect(scripted.unread.isEmpty)
        try harness.sheets.save(result.sheet, owner: "tys")
        let json = try #require(try harness.database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT sheet FROM core_answer_sheets WHERE id = ?", arguments: [result.sheet.id.uuidString])
        })
        return json.replacingOccurrences(of: result.sheet.id.uuidString, with: "SHEET-ID")
            .replacingOccurrences(of: QuestionnaireEngine.clientVersion, with: "CLIENT")
    }

    @Test("every element chosen with Space, arrows and digits: the same JSON as before")
    func everyElementChosen() throws {
        let json = try Self.storedJSON(keys: [
            .space, .enter,                    // yes: Space on the option, then Enter
            .right, .right, .right, .enter,    // slider 0–100 step 5: 50, 55, 60
            .character("3"), .enter,           // scale 0–7: 3
            .down, .space, .enter,             // single choice: the second option (2)
            .space, .down, .down, .space, .enter,  // multiple choice: 1 and 4
            .character("7"), .enter,           // SAM valence 7
            .left, .enter,                     // SAM arousal (5 points): the first arrow shows the middle, 3
        ], lines: ["quiet\\nday", "2026-01-02"])
        #expect(json == Self.chosen)
    }

    @Test("optional items left empty with '-', a hidden branch: the same JSON as before")
    func optionalLeftEmpty() throws {
        let json = try Self.storedJSON(keys: [
            .down, .space, .enter,   // no: the loudness and onset questions stay hidden
            .end, .enter,            // scale: 7
            .character("-"),         // single choice left empty
            .character("-"),         // multiple choice left empty
            .home, .enter,           // SAM valence 1
            .character("-"),         // SAM arousal left empty
        ], lines: ["-"])
        #expect(json == Self.leftEmpty)
    }

    /// Stored by the widgets before issue 29 for the keys of ``everyElementChosen()`` (with, since
    /// issue 46, who began the sheet: no prompt was open, so the participant).
    static let chosen = #"""
    {"answers":{"arousal":{"answeredAt":"2026-11-18T12:06:40+01:00","value":3},"company":{"answeredAt":"2026-11-18T12:06:40+01:00","value":[1,4]},"hears-noise":{"answeredAt":"2026-11-18T12:06:40+01:00","value":0},"loudness":{"answeredAt":"2026-11-18T12:06:40+01:00","value":60},"note":{"answeredAt":"2026-11-18T12:06:40+01:00","value":"quiet\nday"},"onset":{"answeredAt":"2026-11-18T12:06:40+01:00","value":"2026-01-02"},"place":{"answeredAt":"2026-11-18T12:06:40+01:00","value":2},"stress":{"answeredAt":"2026-11-18T12:06:40+01:00","value":3},"valence":{"answeredAt":"2026-11-18T12:06:40+01:00","value":7}},"clientVersion":"CLIENT","endedAt":"2026-11-18T12:06:40+01:00","id":"SHEET-ID","initiatedBy":"participant","isPartial":false,"language":"en","questionnaireID":"every-element","questionnaireVersion":3,"startedAt":"2026-11-18T12:06:40+01:00"}
    """#

    /// Stored by the widgets before issue 29 for the keys of ``optionalLeftEmpty()`` (and `initiatedBy`).
    static let leftEmpty = #"""
    {"answers":{"hears-noise":{"answeredAt":"2026-11-18T12:06:40+01:00","value":1},"stress":{"answeredAt":"2026-11-18T12:06:40+01:00","value":7},"valence":{"answeredAt":"2026-11-18T12:06:40+01:00","value":1}},"clientVersion":"CLIENT","endedAt":"2026-11-18T12:06:40+01:00","id":"SHEET-ID","initiatedBy":"participant","isPartial":false,"language":"en","questionnaireID":"every-element","questionnaireVersion":3,"startedAt":"2026-11-18T12:06:40+01:00"}
    """#
}
