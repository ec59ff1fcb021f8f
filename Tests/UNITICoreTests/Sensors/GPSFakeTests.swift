import Foundation
import Testing
@testable import UNITICore
import UNITITesting

/// The gpsd client against a real gpsd, fed by gpsfake from an NMEA log written for a known
/// position (the Münster square in Ulm), and the log writer itself.
@Suite("gpsd through gpsfake", .timeLimit(.minutes(10)))
struct GPSFakeTests {
    static let ulm = (latitude: 48.4011, longitude: 9.9876, altitude: 480.0)

    /// Great-circle distance in metres (haversine, mean Earth radius).
    static func metres(from a: (latitude: Double, longitude: Double), to b: (latitude: Double, longitude: Double)) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians, dLon = (b.longitude - a.longitude) * radians
        let h = pow(sin(dLat / 2), 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * pow(sin(dLon / 2), 2)
        return 2 * 6_371_000 * asin(min(1, sqrt(h)))
    }

    @Test("a real gpsd reports the log's position: the fix is within 50 m of it, at its altitude")
    func realGPSDReportsTheLoggedPosition() throws {
        let gps = try GPSFake(latitude: Self.ulm.latitude, longitude: Self.ulm.longitude, altitude: Self.ulm.altitude)
        let fix = try gps.client(timeout: 20).readFix()
        #expect(Self.metres(from: (fix.latitude, fix.longitude), to: (Self.ulm.latitude, Self.ulm.longitude)) < 50)
        #expect(fix.mode >= 2)
        // gpsd's first fix of a log may come before it has put together altitude or date (a 2D
        // fix from GGA alone); what it does give must be the log's.
        if let altitude = fix.altitudeMeters { #expect(abs(altitude - Self.ulm.altitude) < 1) }
        if let time = fix.time { #expect((0...5).contains(time.timeIntervalSince(ModuleHarness.defaultNow))) }
    }

    @Test("a stopped gpsfake takes its gpsd with it: nothing accepts connections at its endpoint any more")
    func stopEndsGPSD() throws {
        let gps = try GPSFake(latitude: -33.45, longitude: -70.66, altitude: 570)
        try gps.client().checkReachable(within: 1)
        gps.stop()
        #expect(throws: UNITIError.self) { try gps.client().checkReachable(within: 0.5) }
    }

    @Test("NMEA sentences carry the XOR checksum and degrees-and-minutes in both hemispheres")
    func nmeaSentences() throws {
        #expect(NMEALog.sentence("GPGGA,120000.00,4824.0660,N,00959.2560,E,1,08,0.9,480.0,M,47.0,M,,")
            == "$GPGGA,120000.00,4824.0660,N,00959.2560,E,1,08,0.9,480.0,M,47.0,M,,*6F")
        let start = Date(timeIntervalSince1970: 1_790_078_400)  // 2026-09-22 12:00:00 UTC
        let sentences = NMEALog.sentences(latitude: -33.45, longitude: -70.66, altitude: 570, start: start, epochs: 2)
        #expect(sentences.count == 6)
        #expect(sentences[0].hasPrefix("$GPGGA,120000.00,3327.0000,S,07039.6000,W,1,08,0.9,570.0,M"))
        #expect(sentences[2].hasPrefix("$GPRMC,120000.00,A,3327.0000,S,07039.6000,W,0.0,0.0,220926,"))
        #expect(sentences[3].hasPrefix("$GPGGA,120001.00,"))
        for sentence in sentences {
            let body = sentence.dropFirst().prefix { $0 != "*" }
            #expect(sentence.hasSuffix(String(format: "*%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 })))
        }
    }
}
