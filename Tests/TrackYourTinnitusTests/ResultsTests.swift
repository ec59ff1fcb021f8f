import Foundation
import Testing
@testable import TrackYourTinnitus
import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Results (thesis FR5) and feedback (FR12)", .timeLimit(.minutes(10)))
struct ResultsTests {
    static func result(_ i: Int, noise: Double? = nil) -> MomentaryResult {
        MomentaryResult(id: "r\(i)", answeredAt: Date(timeIntervalSince1970: 1_790_000_000 + Double(i) * 5000), utcOffset: 3600,
                        questionnaireID: "tyt-momentary", questionnaireVersion: 1,
                        values: [i % 2, i % 101, 50, i % 8, 3, 20, 30, 40], noiseDBFS: noise)
    }

    static func store(_ count: Int, in fixture: TinnitusFixture) throws {
        try fixture.services.database.writer.write { db in
            for i in 0..<count {
                let r = result(i, noise: i.isMultiple(of: 2) ? -31.26 : nil)
                let sheet = AnswerSheet(id: UUID(), questionnaireID: r.questionnaireID, questionnaireVersion: 1,
                                        startedAt: OffsetTimestamp(r.answeredAt, in: .gmt), clientVersion: "test")
                try ResultStore.save(r, sheet: sheet, in: db)
            }
        }
    }

    @Test("without results, 'no results yet'")
    func empty() throws {
        let fixture = try TinnitusFixture()
        try ResultsCommand.parse([]).run(in: fixture.context)
        #expect(fixture.output.out.contains("No results yet"))
    }

    @Test("JSON: time with UTC offset, eight values in question order, noise or null, and the yes/no coding")
    func json() throws {
        let fixture = try TinnitusFixture()
        try Self.store(3, in: fixture)
        try ResultsCommand.parse(["--json"]).run(in: fixture.context)
        let object = try JSONSerialization.jsonObject(with: Data(fixture.output.out.utf8)) as! [String: Any]
        #expect((object["items"] as! [String]) == MomentaryResult.itemLabels)
        #expect((object["encoding"] as! [String: String])["perceived"] == "yes = 0, no = 1")
        let results = object["results"] as! [[String: Any]]
        #expect(results.count == 3)
        #expect((results[0]["time"] as! String).hasSuffix("+01:00"))
        #expect((results[1]["values"] as! [Int]) == [1, 1, 50, 1, 3, 20, 30, 40])
        #expect((results[0]["noiseDBFS"] as? Double) == -31.3)
        #expect(results[1]["noiseDBFS"] is NSNull)
    }

    @Test("charts per item, by week with mean and range, and an SVG document")
    func charts() throws {
        let fixture = try TinnitusFixture()
        try Self.store(40, in: fixture)
        try ResultsCommand.parse([]).run(in: fixture.context)
        #expect(fixture.output.out.contains("40 results, 31 shown"))
        #expect(fixture.output.out.contains("Loudness (0–100)"))
        try ResultsCommand.parse(["--by", "week"]).run(in: fixture.context)
        #expect(fixture.output.out.contains("mean"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tyt-\(UUID().uuidString).svg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ResultsCommand.parse(["--svg", path]).run(in: fixture.context)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "<svg").count == 1 + 1 + 9)  // outer + 8 items + noise
        #expect(text.hasSuffix("</svg>\n"))
    }

    @Test("feedback is stored and queued as a module record in the same transaction; a bad address stores nothing")
    func feedback() throws {
        let fixture = try TinnitusFixture()
        let words = ["The", "reminders", "are", "too", "quiet"]
        #expect(throws: UNITIError.self) { try FeedbackCommand.parse(words + ["--email", "not an address"]).run(in: fixture.context) }
        #expect(try fixture.services.database.writer.read(Feedback.fetchCount) == 0)
        try FeedbackCommand.parse(words + ["--email", "me@example.org"]).run(in: fixture.context)
        let stored = try fixture.services.database.writer.read(Feedback.fetchAll)
        #expect(stored.map(\.text) == ["The reminders are too quiet"])
        let record = try #require(try fixture.harness.queuedRecords()["tyt/feedback:\(stored[0].id)"])
        #expect(record.payload?["text"] == .string("The reminders are too quiet"))
        #expect(record.payload?["email"] == .string("me@example.org"))
    }
}
