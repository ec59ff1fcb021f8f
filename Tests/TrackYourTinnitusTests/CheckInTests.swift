import Foundation
import GRDB
import Testing
@testable import TrackYourTinnitus
import UNITICore
import UNITIProtocol

@Suite("Check-in (thesis FR2, FR6)", .timeLimit(.minutes(10)))
struct CheckInTests {
    static let answers = ["no", "40", "55", "3", "5", "60", "20", "70"]

    @Test("a complete check-in stores eight values in question order and queues the sheet in the outbox")
    func stores() throws {
        let fixture = try TinnitusFixture(input: Self.answers)
        let result = try MomentaryCheckIn(context: fixture.context).run(recording: nil)
        #expect(result.values == [1, 40, 55, 3, 5, 60, 20, 70])
        let stored = try ResultStore(database: fixture.services.database).all()
        #expect(stored == [result])
        let queued = try fixture.services.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_outbox WHERE moduleID = 'tyt'")
        }
        #expect(queued == 1)
    }

    @Test("end of input before the eighth answer stores nothing")
    func partialNotStored() throws {
        let fixture = try TinnitusFixture(input: Array(Self.answers.prefix(7)))
        #expect(throws: PromptCancelled.self) { try MomentaryCheckIn(context: fixture.context).run(recording: nil) }
        #expect(try ResultStore(database: fixture.services.database).count() == 0)
    }

    @Test("item 8 names the chosen worst symptom, and a neutral phrase before a choice")
    func symptomText() throws {
        let fixture = try TinnitusFixture()
        let questionnaire = MomentaryQuestionnaire(database: fixture.services.database)
        let neutral = try questionnaire.personalized(for: nil).items[7].text!
        #expect(neutral.text(in: "en").contains("the complaint that troubles you most"))
        let chosen = try questionnaire.personalized(for: .fallingAsleep).items[7].text!
        #expect(chosen.text(in: "en").contains("trouble falling asleep"))
        #expect(chosen.text(in: "de").contains("Einschlafprobleme"))
        #expect(!chosen.text(in: "de").contains("{worstSymptom}"))
    }

    @Test("a newer questionnaire version from the server becomes active; results keep the version they answered")
    func serverVersion() throws {
        let fixture = try TinnitusFixture(input: Self.answers)
        var newer = try QuestionnaireLoader.bundled(MomentaryQuestionnaire.id)
        newer.version = 3
        let json = String(decoding: try JSONEncoder().encode(newer), as: UTF8.self)
        try fixture.services.database.writer.write { db in
            try db.execute(sql: "INSERT INTO core_server_questionnaires(id, version, studyID, definition) VALUES (?, 3, 'study-1', ?)",
                           arguments: [MomentaryQuestionnaire.id, json])
        }
        #expect(try MomentaryQuestionnaire(database: fixture.services.database).active().version == 3)
        let result = try MomentaryCheckIn(context: fixture.context).run(recording: nil)
        #expect(result.questionnaireVersion == 3)
    }

    @Test("a due reminder without a check-in since makes the module open the questionnaire; not one from before the rule was set")
    func dueReminder() throws {
        let fixture = try TinnitusFixture(input: Self.answers)
        let monday = try LocalDate(parsing: "2026-01-05")
        func move(to hour: Int, _ minute: Int) {
            fixture.clock.advance(by: monday.instant(at: TimeOfDay(hour: hour, minute: minute), in: TinnitusFixture.berlin)
                .timeIntervalSince(fixture.clock.now))
        }
        // Set at 09:10, a 09:00 reminder never held: entering asks nothing.
        move(to: 9, 10)
        #expect(fixture.harness.run("tyt notify add mon 09:00") == .success)
        try fixture.module.didEnter(fixture.context)
        #expect(try ResultStore(database: fixture.services.database).count() == 0)
        // Next Monday the rule has held all week: its 09:00 reminder opens the questionnaire.
        fixture.clock.advance(by: 7 * 86_400)
        try fixture.module.didEnter(fixture.context)
        #expect(try ResultStore(database: fixture.services.database).count() == 1)
        // Answered since the reminder: entering again asks nothing.
        try fixture.module.didEnter(fixture.context)
        #expect(try ResultStore(database: fixture.services.database).count() == 1)
    }
}
