import Foundation

/// NMEA 0183 logs of a receiver standing still at a known position, for feeding a real gpsd
/// through ``GPSFake``: one epoch per second, each a GGA (position, altitude), a GSA (a 3D fix)
/// and an RMC (position, date) sentence with its checksum.
///
/// ```swift
/// try NMEALog.write(latitude: 48.4011, longitude: 9.9876, altitude: 480, to: path)
/// ```
public enum NMEALog {
    /// Writes ``sentences(latitude:longitude:altitude:start:epochs:)`` to `path`, CR LF ended as
    /// a receiver sends them.
    public static func write(latitude: Double, longitude: Double, altitude: Double, to path: String,
                             start: Date = ModuleHarness.defaultNow, epochs: Int = 5) throws {
        let text = sentences(latitude: latitude, longitude: longitude, altitude: altitude, start: start, epochs: epochs)
            .map { $0 + "\r\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// `epochs` seconds of fixes at the position (degrees, north and east positive; altitude in
    /// metres above sea level) from `start` on (UTC, as receivers report).
    public static func sentences(latitude: Double, longitude: Double, altitude: Double,
                                 start: Date = ModuleHarness.defaultNow, epochs: Int = 5) -> [String] {
        let north = coordinate(latitude, degreeDigits: 2, positive: "N", negative: "S")
        let east = coordinate(longitude, degreeDigits: 3, positive: "E", negative: "W")
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        return (0..<max(1, epochs)).flatMap { epoch -> [String] in
            let moment = utc.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                            from: start.addingTimeInterval(Double(epoch)))
            let time = String(format: "%02d%02d%02d.00", moment.hour!, moment.minute!, moment.second!)
            let date = String(format: "%02d%02d%02d", moment.day!, moment.month!, moment.year! % 100)
            return [
                // Fix quality 1 (GPS), 8 satellites, HDOP 0.9, geoid separation 47 m (Ulm's).
                sentence("GPGGA,\(time),\(north),\(east),1,08,0.9,\(String(format: "%.1f", altitude)),M,47.0,M,,"),
                sentence("GPGSA,A,3,04,05,09,12,17,20,24,28,,,,,1.6,0.9,1.3"),
                sentence("GPRMC,\(time),A,\(north),\(east),0.0,0.0,\(date),,,A"),
            ]
        }
    }

    /// `$body*CS`: the checksum is the XOR of every character between `$` and `*`, in hex.
    public static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + String(format: "*%02X", checksum)
    }

    /// `ddmm.mmmm,N` (latitude) or `dddmm.mmmm,E` (longitude), rounded to 1/10000 minute (≈ 0.2 m).
    static func coordinate(_ degrees: Double, degreeDigits: Int, positive: String, negative: String) -> String {
        let tenThousandthsOfMinute = Int((abs(degrees) * 60 * 10_000).rounded())
        let whole = tenThousandthsOfMinute / 600_000
        let minutes = tenThousandthsOfMinute % 600_000
        return String(format: "%0\(degreeDigits)d%02d.%04d", whole, minutes / 10_000, minutes % 10_000)
            + "," + (degrees < 0 ? negative : positive)
    }
}
