import Foundation
import GRDB
import ShadesOfNoise
import Testing
import TrackYourTinnitus
import UNITICore
import UNITIProtocol
import UNITITesting

/// The integrated host and the standalone programs share a person's data directory: each opens
/// what the other wrote, and records pulled by a program that lacks their module are kept and
/// applied when a program that has it opens the directory.
@Suite("A data directory shared by the host and the standalone programs", .isolatedLanguage, .timeLimit(.minutes(10)))
struct SharedDataDirectoryTests {
    static let checkIn = ["yes", "35", "60", "4", "2", "50", "80", "25"]

    func results(_ harness: ModuleHarness) throws -> [MomentaryResult] {
        try ResultStore(database: harness.database).all()
    }

    @Test("a standalone program opens a directory the host wrote: other modules' steps are not a newer version")
    func hostThenStandalone() throws {
        let host = try ModuleHarness(allRealModules, input: Self.checkIn)
        #expect(host.run("tyt fill") == .success)
        #expect(host.run("son frequency set 6000") == .success)

        let standalone = try ModuleHarness(TrackYourTinnitusModule(), program: .standalone, directory: host.directory)
        #expect(try results(standalone).map(\.values) == [[0, 35, 60, 4, 2, 50, 80, 25]])
        #expect(standalone.run("results") == .success)
        // The other modules' tables are left as they were.
        #expect(try standalone.database.writer.read { db in try Double.fetchOne(db, sql: "SELECT hz FROM son_frequency") } == 6000)
    }

    @Test("the host opens a directory a standalone program wrote, adding the other modules' tables")
    func standaloneThenHost() throws {
        let standalone = try ModuleHarness(ShadesOfNoiseModule(), program: .standalone)
        #expect(standalone.run("frequency set 4000") == .success)
        #expect(standalone.run("favorite add rain") == .success)

        let host = try ModuleHarness(allRealModules, input: Self.checkIn, directory: standalone.directory)
        #expect(host.run("son frequency") == .success)
        #expect(host.output.out.contains("4000"))
        #expect(host.run("tyt fill") == .success)
        #expect(try results(host).count == 1)
        let applied = try host.database.appliedSteps()
        #expect(applied["tyt"]?.isEmpty == false && applied["son"]?.isEmpty == false)
    }

    @Test("a step of one of its own modules that this version does not know is still refused, and the file left untouched")
    func ownNewerStepRefused() throws {
        let host = try ModuleHarness(allRealModules)
        try host.database.writer.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('tyt.v99-from-the-future'), ('zz.v1-other-program')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: host.directory.databasePath))
        #expect {
            _ = try ModuleHarness(TrackYourTinnitusModule(), program: .standalone, directory: host.directory)
        } throws: { error in
            let message = (error as? UNITIError)?.message ?? ""
            return message.contains("tyt.v99-from-the-future") && !message.contains("zz.v1-other-program")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: host.directory.databasePath)) == before)
        // A module the program lacks may have any steps.
        _ = try ModuleHarness(ShadesOfNoiseModule(), program: .standalone, directory: host.directory)
    }

    @Test("records and sheets pulled by a standalone program that lacks their module survive and are applied when the host opens the directory")
    func parkedUntilTheModuleIsThere() throws {
        let son = try ModuleHarness(ShadesOfNoiseModule(), program: .standalone)
        let at = son.clock.now
        // What a sync would pull for this person: Track Your Tinnitus feedback and a check-in
        // from another device, a draft of the shared baseline, and a son record of a kind a
        // newer version of Shades Of Noise wrote.
        let feedback = ModuleRecord(moduleId: "tyt", clientId: "feedback:f1", updatedAt: OffsetTimestamp.utcMilliseconds(at), deleted: false,
                                    payload: .object(["id": .string("f1"), "text": .string("Louder reminders, please"),
                                                      "createdAt": .string(OffsetTimestamp.utcMilliseconds(at)),
                                                      "updatedAt": .string(OffsetTimestamp.utcMilliseconds(at))]))
        let newKind = ModuleRecord(moduleId: "son", clientId: "playlist:p1", updatedAt: OffsetTimestamp.utcMilliseconds(at), deleted: false,
                                   payload: .object(["sounds": .array([.string("rain")])]))
        let outcomes = try son.pull(records: [feedback, newKind])
        #expect(outcomes.allSatisfy { $0 != .applied })
        var sheet = AnswerSheet(id: UUID(), questionnaireID: MomentaryQuestionnaire.id, questionnaireVersion: 1,
                                startedAt: OffsetTimestamp(at.addingTimeInterval(-60), in: son.clock.timeZone),
                                endedAt: OffsetTimestamp(at, in: son.clock.timeZone), clientVersion: "uniti 0.2.0", owner: .tyt)
        for (label, value) in zip(MomentaryResult.itemLabels, [1, 20, 30, 4, 5, 60, 70, 80]) {
            sheet.answers[label] = Answer(value: label == "perceived" ? .yesNo(false) : .integer(value),
                                          answeredAt: OffsetTimestamp(at, in: son.clock.timeZone))
        }
        try son.pull(sheets: [sheet])
        #expect(try son.database.writer.read(ParkedRecords.count) == 3)

        // Opening the directory with the host delivers what it can: the feedback and the check-in.
        let host = try ModuleHarness(allRealModules, directory: son.directory)
        let feedbackRows = try host.database.writer.read { db in try String.fetchAll(db, sql: "SELECT text FROM tyt_feedback") }
        #expect(feedbackRows == ["Louder reminders, please"])
        #expect(try results(host).map(\.values) == [[1, 20, 30, 4, 5, 60, 70, 80]])
        // The kind no version here knows stays parked for a newer Shades Of Noise.
        #expect(try host.database.writer.read(ParkedRecords.count) == 1)
        // And opening again changes nothing more (delivered once).
        let again = try ModuleHarness(allRealModules, directory: son.directory)
        #expect(try results(again).count == 1)
    }
}
