import Foundation
import Testing
@testable import TrackYourStress
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Track Your Stress: results (thesis FR18)", .timeLimit(.minutes(10)))
struct StressResultsTests {
    /// The one-time questionnaire and three daily ones over two days.
    static func withAnswers() throws -> StressFixture {
        var daily2 = StressFixture.daily
        daily2[0] = "20"
        var daily3 = StressFixture.daily
        daily3[0] = "100"
        let fixture = try StressFixture(input: StressFixture.aboutYou + StressFixture.daily + daily2 + daily3)
        #expect(fixture.run("tys fill").succeeded)
        #expect(fixture.run("tys fill").succeeded)
        fixture.harness.clock.advance(by: 3600)
        #expect(fixture.run("tys fill").succeeded)
        fixture.harness.clock.advance(by: 86_400)
        #expect(fixture.run("tys fill").succeeded)
        return fixture
    }

    @Test("the values of the first numeric item over time, per day on request, with a line saying why there is no comparison")
    func values() throws {
        let fixture = try Self.withAnswers()
        let json = try JSONSerialization.jsonObject(with: Data(fixture.run("tys results --by day --json").out.utf8)) as! [String: Any]
        #expect(json["questionnaire"] as? String == "tys-demo-daily")
        #expect(json["label"] as? String == "stress")
        #expect((json["values"] as! [[String: Any]]).map { $0["value"] as! Double } == [60, 20, 100])
        let periods = json["periods"] as! [[String: Any]]
        #expect(periods.map { $0["mean"] as! Double } == [40, 100])
        #expect(json["comparisonUnavailable"] as? String == "Log in to compare your answers with all participants of the study.")
        let text = fixture.run("tys results --label control")
        #expect(text.succeeded)
        #expect(text.out.contains("3 answers") && text.out.contains("Log in to compare"))
    }

    @Test("the comparison's period begins when the first sheet was started, not when it was finished (the server places sheets by their start)")
    func comparisonPeriodFromStart() throws {
        let fixture = try Self.withAnswers()
        // The first daily sheet took the person 3 seconds: started at 09:59:57, finished at 10:00:00.
        let started = OffsetTimestamp(StressFixture.now.addingTimeInterval(-3), in: ModuleHarness.berlin).text
        try fixture.services.database.writer.write { db in
            try db.execute(sql: """
                UPDATE core_answer_sheets SET sheet = json_set(sheet, '$.startedAt', ?)
                WHERE questionnaireID = 'tys-demo-daily' AND endedAt = (SELECT MIN(endedAt) FROM core_answer_sheets WHERE questionnaireID = 'tys-demo-daily')
                """, arguments: [started])
            #expect(db.changesCount == 1)
        }
        let series = try StressSeries.load(fixture.context, id: nil, label: nil)
        #expect(series.values.first?.0 == StressFixture.now)
        #expect(series.firstStarted == StressFixture.now.addingTimeInterval(-3))
    }

    @Test("an item without numbers or an unknown label is refused naming the items that can be charted")
    func unknownLabel() throws {
        let fixture = try Self.withAnswers()
        let refused = fixture.run("tys results tys-demo-daily --label stressor-other")
        #expect(!refused.succeeded)
        #expect(refused.err.contains("stress, control"))
    }

    @Test("--svg writes one SVG document")
    func svg() throws {
        let fixture = try Self.withAnswers()
        let path = NSTemporaryDirectory() + "tys-results-\(UUID().uuidString).svg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(fixture.run("tys results --svg \(path)").succeeded)
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml") && svg.contains("<svg") && svg.contains("polyline"))
    }
}
