import Foundation
import UNITIProtocol

/// The sensors running while one sheet is answered, from ``QuestionnaireSensors/start(_:localizer:)``
/// until ``stop()`` (the sheet is finished) or ``cancel()`` (the person left it).
///
/// It is what ends up in `sheet.sensors`: one ``SensorReadings`` with a reading per sensor that
/// ran. The microphone's level is stamped with the injected clock at the moment answering
/// ended; the location with the time of its fix (that moment, when gpsd gave no time).
public final class SensorCapture {
    var microphone: MicrophoneLevelCapture?
    var location: LocationCapture?
    private let clock: any WallClock
    private let console: Console
    private let localizer: Localizer

    init(clock: any WallClock, console: Console, localizer: Localizer) {
        self.clock = clock
        self.console = console
        self.localizer = localizer
    }

    deinit {
        cancel()
    }

    /// Stops every sensor and returns what they read, nil when nothing was. A sensor that
    /// read nothing (the device stopped delivering sound, gpsd had no fix) says why in one line.
    public func stop() -> SensorReadings? {
        let end = clock.now
        var readings = SensorReadings()
        if let microphone {
            self.microphone = nil
            if let dbfs = reading(.microphone, microphone.stop) {
                readings.microphone = MicrophoneReading(dbfs: dbfs, measuredAt: OffsetTimestamp(end, in: clock.timeZone))
            }
        }
        if let location {
            self.location = nil
            readings.location = reading(.location, location.stop)?.reading(measuredAt: end, in: clock.timeZone)
        }
        return readings == SensorReadings() ? nil : readings
    }

    /// Stops every sensor and keeps nothing.
    public func cancel() {
        _ = try? microphone?.stop()
        microphone = nil
        location?.cancel()
        location = nil
    }

    /// What `stop` gave, or nil after one line saying why there is nothing.
    private func reading<Value>(_ kind: SensorKind, _ stop: () throws -> Value) -> Value? {
        do {
            return try stop()
        } catch let error as UNITIError {
            notice(kind, reason: error.message)
        } catch {
            notice(kind, reason: "\(error)")
        }
        return nil
    }

    /// One line: this sensor is not measured, and why.
    func notice(_ kind: SensorKind, reason: String) {
        console.line(localizer("core.sensors.notice.unavailable", ["subject": kind.localizedSubject(localizer), "reason": reason]))
    }
}
