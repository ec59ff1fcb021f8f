import Foundation
import Testing
@testable import UNITICore
@testable import UNITIHost
import UNITITesting

/// `sensors`, `sensors allow NAME`, `sensors refuse NAME` through the shell.
@Suite("sensors command", .isolatedLanguage, .timeLimit(.minutes(10)))
struct SensorsCommandTests {
    static func permission(_ fixture: ShellFixture, _ kind: SensorKind) throws -> SensorPermission? {
        try SensorPermissions(settings: fixture.harness.services.settings).permission(for: kind)
    }

    @Test("allow and refuse round-trip through the core settings and show in the listing")
    func allowRefuseRoundTrip() throws {
        let fixture = try ShellFixture()
        #expect(fixture.shell.execute(line: "sensors") == .success)
        #expect(fixture.output.out.contains("microphone") && fixture.output.out.contains("not asked"))

        #expect(fixture.shell.execute(line: "sensors allow microphone") == .success)
        #expect(try Self.permission(fixture, .microphone) == .allowed)
        #expect(fixture.output.out.contains("Allowed. The ambient noise level is measured"))
        #expect(try Self.permission(fixture, .location) == nil)

        #expect(fixture.shell.execute(line: "sensors --json") == .success)
        let json = String(fixture.output.out.drop { $0 != "[" })
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["sensor"] as? String } == ["microphone", "location"])
        #expect(rows[0]["permission"] as? String == "allowed")
        #expect(rows[0]["unavailable"] as? String == "no audio input device (test harness)")
        #expect((rows[1]["unavailable"] as? String)?.hasPrefix("no gpsd at 127.0.0.1:1 (") == true)  // the harness has no gpsd

        #expect(fixture.shell.execute(line: "sensors refuse microphone") == .success)
        #expect(try Self.permission(fixture, .microphone) == .refused)
    }

    @Test("the values may be typed in German too: erlauben, ablehnen, Mikrofon")
    func germanWords() throws {
        let fixture = try ShellFixture()
        #expect(fixture.shell.execute(line: "sensors erlauben Mikrofon") == .success)
        #expect(try Self.permission(fixture, .microphone) == .allowed)
        #expect(fixture.shell.execute(line: "sensors ablehnen standort") == .success)
        #expect(try Self.permission(fixture, .location) == .refused)
    }

    @Test("an unknown sensor name is refused in one line naming the sensors, and nothing changes")
    func unknownSensorRefused() throws {
        let fixture = try ShellFixture()
        #expect(fixture.shell.execute(line: "sensors allow gps") == .failure)
        let lines = fixture.output.err.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("gps") == true)
        #expect(lines.first?.contains("microphone") == true && lines.first?.contains("location") == true)
        #expect(try Self.permission(fixture, .microphone) == nil)
    }

    @Test("a decision without a sensor says in one line which sensors there are")
    func decisionNeedsSensor() throws {
        let fixture = try ShellFixture()
        #expect(fixture.shell.execute(line: "sensors refuse") == .failure)
        let lines = fixture.output.err.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("sensors refuse microphone") == true)
    }

    @Test("the standalone programs have the command too, at top level")
    func standalone() throws {
        let fixture = try ShellFixture(standalone: true)
        #expect(fixture.shell.execute(line: "sensors allow microphone") == .success)
        #expect(try Self.permission(fixture, .microphone) == .allowed)
    }
}
