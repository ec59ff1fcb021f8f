import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: tn report, the report for the doctor", .timeLimit(.minutes(10)))
struct ReportTests {
    /// A record with something of every kind inside the period 2026-06-01…2026-11-23 and
    /// something outside it.
    static func fixture() throws -> TNFixture {
        let fixture = try TNFixture()
        let store = fixture.store
        let zone = ModuleHarness.berlin
        #expect(fixture.run("tn audiogram add --date 2026-11-20 --left 10,15,20,25,30,40,50 --right 5,10,10,15,20,35,45").succeeded)
        #expect(fixture.run("tn audiogram add --date 2026-02-02 --left 0,0,0,0,0,0,0 --right 0,0,0,0,0,0,0").succeeded)
        try store.save(Therapy(name: "Sound therapy Zebra", type: .auditoryStimulation, start: LocalDate(year: 2026, month: 5, day: 1),
                               end: LocalDate(year: 2026, month: 7, day: 31), note: "Helped at night", now: TNFixture.now))
        try store.save(Therapy(name: "Old Walrus course", type: .other, start: LocalDate(year: 2025, month: 1, day: 1),
                               end: LocalDate(year: 2025, month: 3, day: 1), note: nil, now: TNFixture.now))
        try store.save(HealthEvent(title: "Appointment Kestrel ENT", at: LocalDate(year: 2026, month: 9, day: 14)
                                       .instant(at: TimeOfDay(hour: 9, minute: 30), in: zone),
                                   type: .appointment, description: "hearing test", now: TNFixture.now))
        try store.save(HealthEvent(title: "Event Ocelot long ago", at: LocalDate(year: 2026, month: 1, day: 5)
                                       .instant(at: TimeOfDay(hour: 9, minute: 30), in: zone),
                                   type: .other, description: nil, now: TNFixture.now))
        let definition = try QuestionnaireLoader.bundled("tinnitus-distress-12")
        let items = definition.scoring?.scores.first?.items ?? []
        for (day, questionnaire) in [(10, "tinnitus-distress-12"), (12, "unknown-questionnaire")] {
            let at = OffsetTimestamp(LocalDate(year: 2026, month: 10, day: day).instant(at: TimeOfDay(hour: 18, minute: 0), in: zone), in: zone)
            let sheet = AnswerSheet(id: UUID(), questionnaireID: questionnaire, questionnaireVersion: 1,
                                    answers: Dictionary(uniqueKeysWithValues: items.map { ($0, Answer(value: .number(1), answeredAt: at)) }),
                                    startedAt: at, endedAt: at, clientVersion: "test")
            try store.save(CompletedQuestionnaire(sheet: sheet))
        }
        return fixture
    }

    static func report(_ fixture: TNFixture, language: Language = .english) throws -> String {
        let directory = try HeadlessChromium.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.html")
        let result = CurrentLanguage.$scope.withValue(LockedValue(language)) {
            fixture.run("tn report --out \(file.path) --from 2026-06-01 --to 2026-11-23")
        }
        #expect(result.succeeded, "\(result.err)")
        return try String(contentsOf: file, encoding: .utf8)
    }

    @Test("the HTML is one self-contained file: inline CSS and SVG, no script, nothing loaded from elsewhere, print CSS for A4")
    func selfContained() throws {
        let html = try Self.report(Self.fixture())
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<style>") && html.contains("@page { size: A4"))
        #expect(html.contains("break-inside: avoid"))
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(!html.lowercased().contains("<script"))
        #expect(!html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http"))
        #expect(!html.contains("src=") && !html.contains("<link"))
        // Only the period: the February audiogram, the 2025 therapy and the January event are left out.
        #expect(html.contains("Audiogram of 2026-11-20") && !html.contains("2026-02-02"))
        #expect(!html.contains("Walrus") && !html.contains("Ocelot"))
        // Scores through the bundled definition; an unknown questionnaire only with its date.
        #expect(html.contains("Tinnitus distress (12 statements)") && html.contains("Total distress"))
        #expect(html.contains("12 (moderate)"))
        #expect(html.contains("unknown-questionnaire") && html.contains("2026-10-12 18:00"))
    }

    @Test("a <script> typed into an event title, a therapy note and an audiogram note comes out as text")
    func escaped() throws {
        let fixture = try TNFixture()
        try fixture.store.save(HealthEvent(title: "<script>alert('x')</script>", at: TNFixture.now, type: .other,
                                           description: "a & b", now: TNFixture.now))
        try fixture.store.save(Therapy(name: "T\"1", type: .other, start: TNFixture.today, end: nil, note: "<img src=x onerror=y>",
                                       now: TNFixture.now))
        #expect(fixture.run("tn audiogram add --left 0,0,0,0,0,0,0 --right 0,0,0,0,0,0,0 --note '</svg><script>z</script>'").succeeded)
        let report = try DoctorReport.gather(in: fixture.context, from: nil, to: nil)
        let html = DoctorReportHTML(report: report).document()
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(html.contains("&lt;img src=x onerror=y&gt;"))
        #expect(html.contains("a &amp; b") && html.contains("T&quot;1"))
        #expect(html.contains("&lt;/svg&gt;&lt;script&gt;z&lt;/script&gt;"))
    }

    @Test("the report speaks German from the string tables")
    func german() throws {
        let html = try Self.report(Self.fixture(), language: .german)
        #expect(html.contains("<html lang=\"de\">"))
        #expect(html.contains("Bericht für die Ärztin oder den Arzt"))
        #expect(html.contains("Therapien") && html.contains("Ereignisse") && html.contains("Fragebögen"))
        #expect(html.contains("Audiogramm vom 2026-11-20"))
        #expect(html.contains("Gesamtbelastung") && html.contains("12 (mittelgradig)"))
    }

    @Test("a period ending before it starts is refused in one line")
    func badPeriod() throws {
        let fixture = try TNFixture()
        let result = fixture.run("tn report --out /tmp/never.html --from 2026-11-23 --to 2026-11-01")
        #expect(!result.succeeded)
        #expect(result.err.contains("2026-11-23") && result.err.contains("2026-11-01"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.html"))
    }

    @Test("printed to PDF by Chromium, the report shows its titles, an event, a therapy with its note and the PTA")
    func printsToPDF() throws {
        let fixture = try Self.fixture()
        let directory = try HeadlessChromium.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.html")
        try Data(Self.report(fixture).utf8).write(to: file)
        let printed = try HeadlessChromium.printedText(file)
        let text = printed.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        // Pages are separated by form feeds: the first audiogram starts on the first page, none
        // is left empty before it.
        let firstPage = String(printed.split(separator: "\u{0C}", omittingEmptySubsequences: false).first ?? "")
        #expect(firstPage.contains("Audiogram of 2026-11-20"), "\(firstPage)")
        for expected in ["Tinnitus health record: report for the doctor", "Period: 2026-06-01 to 2026-11-23", "Generated on 2026-11-23",
                         "Audiograms", "Therapies", "Events", "Questionnaires", "Appointment Kestrel ENT", "Sound therapy Zebra",
                         "Helped at night", "28.8 dB HL", "20 dB HL", "Total distress"] {
            #expect(text.contains(expected), "'\(expected)' not in the PDF: \(text.prefix(3000))")
        }
        #expect(!text.contains("Walrus"))
    }
}
