import Foundation
import UNITIProtocol

/// A position as gpsd reports it in a TPV ("time-position-velocity") report: the first one with
/// a 2D or 3D fix is what a sheet gets as its location (Track Your Stress thesis, FR14/FR15).
public struct GPSDFix: Hashable, Sendable {
    /// Degrees, north positive.
    public var latitude: Double
    /// Degrees, east positive.
    public var longitude: Double
    /// Height above mean sea level (`altMSL`, else the older `alt`), when gpsd knows it.
    public var altitudeMeters: Double?
    /// Horizontal error estimate (`eph`, else the larger of `epx` and `epy`), when gpsd gives one.
    public var accuracyMeters: Double?
    /// When the fix was taken, from the receiver (`time`, UTC); nil when gpsd sent none.
    public var time: Date?
    /// 2 for a 2D fix, 3 for a 3D fix.
    public var mode: Int

    public init(latitude: Double, longitude: Double, altitudeMeters: Double? = nil, accuracyMeters: Double? = nil,
                time: Date? = nil, mode: Int) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMeters = altitudeMeters
        self.accuracyMeters = accuracyMeters
        self.time = time
        self.mode = mode
    }

    /// The fix as stored in a sheet, at its own time or else at `fallback`, with the offset of
    /// `timeZone` (the person's local time, as every time in a sheet).
    public func reading(measuredAt fallback: Date, in timeZone: TimeZone) -> LocationReading {
        LocationReading(latitude: latitude, longitude: longitude, accuracyMeters: accuracyMeters,
                        altitudeMeters: altitudeMeters, measuredAt: OffsetTimestamp(time ?? fallback, in: timeZone))
    }

    /// The fix in one line of gpsd's JSON; nil for any other line: another class (VERSION,
    /// DEVICES, WATCH, SKY, …), a TPV without a fix (mode 0 or 1) or without a position, a
    /// position outside the globe, or text that is not such JSON at all.
    init?(report line: some Collection<UInt8>) {
        guard let report = try? JSONDecoder().decode(Report.self, from: Data(line)), report.class == "TPV",
              let mode = report.mode, mode >= 2,
              let latitude = report.lat, let longitude = report.lon,
              (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude) else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.mode = mode
        altitudeMeters = [report.altMSL, report.alt].lazy.compactMap { $0 }.first { $0.isFinite }
        let spread = [report.epx, report.epy].compactMap { $0 }.max()
        accuracyMeters = (report.eph ?? spread).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        time = report.time.flatMap(Self.date(iso8601:))
    }

    /// The fields of a report this reader uses; every one but the class may be missing.
    private struct Report: Decodable {
        let `class`: String
        let mode: Int?
        let lat: Double?
        let lon: Double?
        let altMSL: Double?
        let alt: Double?
        let eph: Double?
        let epx: Double?
        let epy: Double?
        let time: String?
    }

    /// gpsd writes `2026-09-22T12:00:04.000Z`; older versions leave out the fraction.
    private static func date(iso8601 text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
