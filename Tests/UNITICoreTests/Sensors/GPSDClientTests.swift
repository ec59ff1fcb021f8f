import Foundation
import Testing
@testable import UNITICore
import UNITITesting

/// The gpsd client against a gpsd the test plays (``ScriptedGPSD``): what it takes from a
/// stream, and that whatever the other side does costs at most the timeout and one line.
@Suite("gpsd client", .timeLimit(.minutes(10)))
struct GPSDClientTests {
    static let mode1 = #"{"class":"TPV","device":"/dev/ttyACM0","mode":1,"time":"2026-09-22T12:00:01.000Z"}"# + "\n"
    static let mode3 = #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-09-22T12:00:02.000Z","ept":0.005,"lat":48.401100000,"lon":9.987600000,"altHAE":527.0,"altMSL":480.0,"alt":480.5,"eph":17.1,"epx":9.0,"epy":11.0,"speed":0.0}"# + "\n"
    static let sky = #"{"class":"SKY","device":"/dev/ttyACM0","hdop":0.9,"satellites":[{"PRN":4,"el":45,"az":120,"ss":40,"used":true}]}"# + "\n"

    /// Runs `body`, returning its result and how long it took.
    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let start = ContinuousClock.now
        let result = try body()
        return (result, .now - start)
    }

    static func message(_ key: String, endpoint: String, seconds: String = "1") -> String {
        L("core.sensors.location.\(key)", ["endpoint": endpoint, "seconds": seconds, "variable": "UNITI_GPSD"])
    }

    @Test("from VERSION, DEVICES, WATCH, SKY and a TPV without a fix, the first TPV with a 3D fix is taken, with altMSL as altitude and eph as accuracy")
    func normalStreamGivesTheFirstFix() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.send(Self.sky), .send(Self.mode1), .send(Self.mode3)])
        let fix = try GPSDClient(endpoint: gpsd.endpoint, timeout: 2).readFix()

        #expect(fix == GPSDFix(latitude: 48.4011, longitude: 9.9876, altitudeMeters: 480, accuracyMeters: 17.1,
                               time: Date(timeIntervalSince1970: 1_790_078_402), mode: 3))
        #expect(gpsd.commands.value == [#"?WATCH={"enable":true,"json":true};"#])
    }

    @Test("a line split over several writes, with pauses between them, is read whole")
    func partialLinesAreJoined() throws {
        let line = Self.mode3
        let thirds = [line.prefix(20), line.dropFirst(20).prefix(60), line.dropFirst(80)].map(String.init)
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [
            .send(thirds[0]), .pause(0.1), .send(thirds[1]), .pause(0.1), .send(thirds[2]),
        ])
        let fix = try GPSDClient(endpoint: gpsd.endpoint, timeout: 2).readFix()
        #expect(fix.latitude == 48.4011 && fix.longitude == 9.9876)
    }

    @Test("garbage, binary bytes, broken JSON, other JSON and TPVs without a position before a good TPV are skipped")
    func garbageIsSkipped() throws {
        let garbage = [
            "hello gpsd\n", "\u{0}\u{7}\u{1b}[2J\r\n", "{not json at all\n", "[1,2,3]\n", "\n", "   \r\n",
            #"{"mode":3,"lat":1,"lon":2}"# + "\n",                                   // no class
            #"{"class":"TPV","mode":"3","lat":1,"lon":2}"# + "\n",                   // mode as text
            #"{"class":"TPV","mode":3,"lat":1}"# + "\n",                             // no longitude
            #"{"class":"TPV","mode":3,"lat":91.5,"lon":2}"# + "\n",                  // off the globe
            #"{"class":"TPV","mode":0,"lat":1,"lon":2}"# + "\n",                     // no fix
            #"{"class":"ERROR","message":"Unrecognized request"}"# + "\n",
        ]
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + garbage.map { .send($0) } + [.send(Self.mode3)])
        let fix = try GPSDClient(endpoint: gpsd.endpoint, timeout: 2).readFix()
        #expect(fix.latitude == 48.4011 && fix.mode == 3)
    }

    @Test("without a fix the reading ends with the no-fix line after the timeout, not much later")
    func noFixEndsAtTheTimeout() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.send(Self.mode1), .pause(0.3), .send(Self.mode1)])
        let (error, took) = Self.timed { #expect(throws: UNITIError.self) { try GPSDClient(endpoint: gpsd.endpoint, timeout: 1).readFix() } }
        #expect(error?.message == Self.message("noFix", endpoint: gpsd.endpoint))
        #expect(error?.message == "gpsd at \(gpsd.endpoint) reported no position within 1 s (the receiver may have no view of the sky)")
        #expect(took >= .seconds(1) && took < .milliseconds(1500))
    }

    @Test("a gpsd that accepts and then says nothing at all costs the timeout and gives the no-fix line")
    func silentGPSDEndsAtTheTimeout() throws {
        let gpsd = try ScriptedGPSD([])
        let (error, took) = Self.timed { #expect(throws: UNITIError.self) { try GPSDClient(endpoint: gpsd.endpoint, timeout: 0.5).readFix() } }
        #expect(error?.message == Self.message("noFix", endpoint: gpsd.endpoint, seconds: "0.5"))
        #expect(took >= .milliseconds(500) && took < .seconds(1))
    }

    @Test("gpsd closing the connection in the middle of a line gives the closed line at once")
    func closedMidLine() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.send(String(Self.mode3.prefix(50))), .close])
        let (error, took) = Self.timed { #expect(throws: UNITIError.self) { try GPSDClient(endpoint: gpsd.endpoint, timeout: 3).readFix() } }
        #expect(error?.message == Self.message("closed", endpoint: gpsd.endpoint))
        #expect(error?.message.contains("closed the connection") == true)
        #expect(took < .seconds(1))
    }

    @Test("with nothing listening, one line says there is no gpsd at that address and how to point at one")
    func nothingListening() throws {
        let port = try LoopbackListener().port  // closed again at once
        let endpoint = "127.0.0.1:\(port)"
        let (error, took) = Self.timed { #expect(throws: UNITIError.self) { try GPSDClient(endpoint: endpoint, timeout: 2).readFix() } }
        let message = try #require(error?.message)
        #expect(message.hasPrefix("no gpsd at \(endpoint) ("))
        #expect(message.contains("UNITI_GPSD") && !message.contains("\n"))
        #expect(took < .seconds(1))
        #expect(throws: UNITIError(message)) { try GPSDClient(endpoint: endpoint).checkReachable(within: 0.5) }
    }

    @Test("a line that never ends is dropped in bounded memory: the reading ends at the timeout without a crash")
    func endlessLineEndsAtTheTimeout() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.endlessLine(bytes: nil)])
        let (error, took) = Self.timed { #expect(throws: UNITIError.self) { try GPSDClient(endpoint: gpsd.endpoint, timeout: 1).readFix() } }
        #expect(error?.message == Self.message("noFix", endpoint: gpsd.endpoint))
        #expect(took < .milliseconds(1500))
    }

    @Test("after an over-long line (1 MiB) ends, the next good TPV is taken")
    func overLongLineIsDroppedAndReadingGoesOn() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.endlessLine(bytes: 1 << 20), .send("\n"), .send(Self.mode3)])
        let fix = try GPSDClient(endpoint: gpsd.endpoint, timeout: 3).readFix()
        #expect(fix.latitude == 48.4011)
    }

    @Test("a line of just under 64 KiB is still read")
    func longButBoundedLineIsRead() throws {
        let padding = String(repeating: " ", count: GPSDConnection.longestLine - Self.mode3.utf8.count)
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.send(padding + Self.mode3)])
        let fix = try GPSDClient(endpoint: gpsd.endpoint, timeout: 2).readFix()
        #expect(fix.mode == 3)
    }

    @Test("a mistyped address is one line naming it and the variable, before anything is connected")
    func badEndpoint() throws {
        for endpoint in ["gpsd:port", ":2947", "localhost:0", "localhost:70000", "[::1", ""] {
            let error = #expect(throws: UNITIError.self) { try GPSDClient(endpoint: endpoint).readFix() }
            #expect(error?.message == "'\(endpoint)' is not a gpsd address; set UNITI_GPSD to host:port, such as localhost:2947")
        }
    }

    @Test("addresses are host:port, [IPv6]:port, or a bare host on gpsd's port 2947")
    func endpointForms() {
        #expect(GPSDEndpoint("localhost:2947") == GPSDEndpoint(host: "localhost", port: 2947))
        #expect(GPSDEndpoint(" 10.0.0.7:3000 ") == GPSDEndpoint(host: "10.0.0.7", port: 3000))
        #expect(GPSDEndpoint("[::1]:2948") == GPSDEndpoint(host: "::1", port: 2948))
        #expect(GPSDEndpoint("[::1]") == GPSDEndpoint(host: "::1", port: 2947))
        #expect(GPSDEndpoint("::1") == GPSDEndpoint(host: "::1", port: 2947))
        #expect(GPSDEndpoint("gps.local") == GPSDEndpoint(host: "gps.local", port: 2947))
        #expect(GPSDEndpoint("[::1]:2948")?.description == "[::1]:2948")
        #expect(GPSDClient.configured(environment: nil).endpoint == "localhost:2947")
        #expect(GPSDClient.configured(environment: " ").endpoint == "localhost:2947")
        #expect(GPSDClient.configured(environment: "127.0.0.1:4000", timeout: 2) == GPSDClient(endpoint: "127.0.0.1:4000", timeout: 2))
    }

    @Test("altitude falls back from altMSL to alt, accuracy from eph to the larger of epx and epy; a TPV without time has none")
    func reportFields() {
        let fix = GPSDFix(report: Array(#"{"class":"TPV","mode":2,"lat":-33.5,"lon":-70.25,"alt":520.5,"epx":12.0,"epy":20.5}"#.utf8))
        #expect(fix == GPSDFix(latitude: -33.5, longitude: -70.25, altitudeMeters: 520.5, accuracyMeters: 20.5, time: nil, mode: 2))
        let bare = GPSDFix(report: Array(#"{"class":"TPV","mode":2,"lat":1.5,"lon":2.5,"time":"2026-09-22T12:00:02Z"}"#.utf8))
        #expect(bare == GPSDFix(latitude: 1.5, longitude: 2.5, time: Date(timeIntervalSince1970: 1_790_078_402), mode: 2))
        #expect(GPSDFix(report: Array(#"{"class":"TPV","mode":1,"lat":1.5,"lon":2.5}"#.utf8)) == nil)
    }

    @Test("a fix without its own time is stamped with the moment given, in the person's time zone")
    func readingTakesTheFallbackTime() {
        let fix = GPSDFix(latitude: 48.4011, longitude: 9.9876, mode: 2)
        let reading = fix.reading(measuredAt: ModuleHarness.defaultNow, in: ModuleHarness.berlin)
        #expect(reading.measuredAt.text == "2026-09-21T16:13:20+02:00")
        #expect(reading.altitudeMeters == nil && reading.accuracyMeters == nil)
    }

    @Test("a cancelled reading lets go of gpsd within a moment, long before its timeout")
    func cancelLetsGoOfGPSD() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting)
        let capture = LocationCapture.start(GPSDClient(endpoint: gpsd.endpoint, timeout: 5))
        Thread.sleep(forTimeInterval: 0.2)  // connected, waiting for a fix
        let cancelled = ContinuousClock.now
        capture.cancel()
        gpsd.waitUntilFinished()
        let closedAt = try #require(gpsd.clientClosedAt.value)
        #expect(closedAt - cancelled < .milliseconds(500))
    }

    @Test("a capture's stop waits for the fix that comes while answering, and a second stop gives it again")
    func captureStopWaitsForTheFix() throws {
        let gpsd = try ScriptedGPSD(ScriptedGPSD.greeting + [.pause(0.3), .send(Self.mode3)])
        let capture = LocationCapture.start(GPSDClient(endpoint: gpsd.endpoint, timeout: 3))
        let fix = try capture.stop()
        #expect(fix.latitude == 48.4011)
        #expect(try capture.stop() == fix)
    }
}
