import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Answers kept outside the data directory", .timeLimit(.minutes(10)))
struct AnswerRescueTests {
    func draft(answers: Int, clock: FixedClock) -> QuestionnaireDraft {
        var sheet = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                startedAt: OffsetTimestamp(clock.now, in: clock.timeZone), clientVersion: "test")
        for index in 0..<answers {
            sheet.answers["q\(index)"] = Answer(value: .integer(index), answeredAt: OffsetTimestamp(clock.now, in: clock.timeZone))
        }
        return QuestionnaireDraft(sheet: sheet, visited: sheet.answers.keys.sorted())
    }

    @Test("a kept draft comes back into the data directory it belongs to, once, and its file goes")
    func keepAndRestore() throws {
        let harness = try ModuleHarness([])
        let place = NSTemporaryDirectory() + "uniti-rescue-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: place) }
        let rescue = AnswerRescue(dataDirectory: harness.directory, environment: ["UNITI_RESCUE_DIR": place])
        let kept = try #require(rescue.keep(draft(answers: 3, clock: harness.clock), owner: "tyt", at: harness.clock.now))
        #expect(kept.hasPrefix(place + "/"))
        let mode = try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        // Another data directory has nothing waiting.
        let other = try ModuleHarness([])
        #expect(try AnswerRescue(dataDirectory: other.directory, environment: ["UNITI_RESCUE_DIR": place]).restore(into: other.database).isEmpty)
        #expect(try rescue.restore(into: harness.database) == ["daily"])
        let restored = try #require(try QuestionnaireDraftStore(database: harness.database, clock: harness.clock).draft(owner: "tyt", questionnaireID: "daily"))
        #expect(restored.sheet.answers.count == 3)
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(try rescue.restore(into: harness.database).isEmpty)
    }

    @Test("answers are never kept in a folder others may enter")
    func refusesOpenFolder() throws {
        let harness = try ModuleHarness([])
        let place = NSTemporaryDirectory() + "uniti-rescue-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: place) }
        try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let rescue = AnswerRescue(dataDirectory: harness.directory, environment: ["UNITI_RESCUE_DIR": place])
        #expect(rescue.keep(draft(answers: 1, clock: harness.clock), owner: "tyt", at: harness.clock.now) == nil)
        chmod(place, 0o700)
        #expect(rescue.keep(draft(answers: 1, clock: harness.clock), owner: "tyt", at: harness.clock.now) != nil)
    }
}
