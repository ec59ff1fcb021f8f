import UNITIProtocol

/// The sensors running while one sheet is answered, from ``QuestionnaireSensors/start(_:localizer:)``
/// until ``stop()`` (the sheet is finished) or ``cancel()`` (the person left it).
///
/// It is what ends up in `sheet.sensors`: one ``SensorReadings`` with a reading per sensor that
/// ran, each stamped with the injected clock at the moment answering ended.
public final class SensorCapture {
    var microphone: MicrophoneLevelCapture?
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
    /// read nothing (the device stopped delivering sound) says why in one line.
    public func stop() -> SensorReadings? {
        guard let microphone else { return nil }
        self.microphone = nil
        let end = OffsetTimestamp(clock.now, in: clock.timeZone)
        do {
            return SensorReadings(microphone: MicrophoneReading(dbfs: try microphone.stop(), measuredAt: end))
        } catch let error as UNITIError {
            notice(.microphone, reason: error.message)
        } catch {
            notice(.microphone, reason: "\(error)")
        }
        return nil
    }

    /// Stops every sensor and keeps nothing.
    public func cancel() {
        _ = try? microphone?.stop()
        microphone = nil
    }

    /// One line: this sensor is not measured, and why.
    func notice(_ kind: SensorKind, reason: String) {
        console.line(localizer("core.sensors.notice.unavailable", ["subject": kind.localizedSubject(localizer), "reason": reason]))
    }
}
