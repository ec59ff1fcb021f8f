import UNITIProtocol

/// Reads the sensors a questionnaire asks for while the person answers (DESIGN, "Sensors while
/// answering"): the questionnaire engine calls ``start(_:localizer:)`` when answering starts
/// and stops the returned ``SensorCapture`` when the sheet is finished, which writes the
/// readings into `sheet.sensors`. Modules never start a sensor themselves.
///
/// A sensor is read only when the person allowed it (``SensorPermissions``) and it can run
/// here; for every other sensor the questionnaire asks for, one line says why it is not
/// measured and how to allow it, and the answers are taken all the same.
///
/// Topics:
/// - where readings come from: ``microphone`` (the capture device unless the launcher or a
///   test hands another input), ``gpsd`` (the location: `UNITI_GPSD`, else gpsd on this
///   machine, unless a test hands another);
/// - the person's say: ``permissions``, ``replacingMicrophone(withRecording:)`` for one answer;
/// - what the `sensors` command shows: ``unavailability(of:)``.
public struct QuestionnaireSensors: Sendable {
    public let permissions: SensorPermissions
    /// Where the microphone level comes from.
    public private(set) var microphone: SoundInput
    /// Where the location comes from.
    public let gpsd: GPSDClient
    /// Set when the person named a recording for this one answer (see
    /// ``replacingMicrophone(withRecording:)``).
    private var microphoneAllowedForThisAnswer = false
    private let console: Console
    private let clock: any WallClock

    public init(services: CoreServices) {
        permissions = SensorPermissions(settings: services.settings)
        microphone = services.microphone
        gpsd = services.gpsd
        console = services.console
        clock = services.clock
    }

    /// These sensors, measuring the ambient level of the WAV file at `path` for one answer
    /// instead of the microphone (`tyt fill --noise-from FILE.wav`). Naming the file is the
    /// person's permission for it: no live sound is taken, so the stored microphone permission
    /// is not asked. Throws at once when the file cannot be read or holds no sound.
    public func replacingMicrophone(withRecording path: String) throws -> QuestionnaireSensors {
        var copy = self
        copy.microphone = try .recording(path: path)
        copy.microphoneAllowedForThisAnswer = true
        return copy
    }

    /// Starts every sensor in `requested` that is allowed and available; says in one line per
    /// other sensor why it is not measured. Call when answering starts.
    public func start(_ requested: [QuestionnaireSensor], localizer: Localizer) throws -> SensorCapture {
        let capture = SensorCapture(clock: clock, console: console, localizer: localizer)
        for kind in requested.compactMap(SensorKind.init) {
            if let notice = try permissionNotice(for: kind, localizer: localizer) {
                console.line(notice)
                continue
            }
            switch kind {
            case .microphone:
                do {
                    capture.microphone = try MicrophoneLevelCapture.start(microphone)
                } catch let error as UNITIError {
                    capture.notice(kind, reason: error.message)
                }
            case .location:
                // Read in the background from now on and taken when the sheet is finished, so
                // nobody waits for gpsd while answering.
                capture.location = LocationCapture.start(gpsd)
            }
        }
        return capture
    }

    /// Why `kind` cannot be read here now (no capture device, no gpsd); nil when it can. Opens
    /// the microphone input, or connects to gpsd (for at most a second), to find out.
    public func unavailability(of kind: SensorKind) -> String? {
        switch kind {
        case .microphone: return Self.reason { _ = try microphone.open() }
        case .location: return Self.reason { try gpsd.checkReachable(within: 1) }
        }
    }

    /// Nil when `attempt` succeeds; otherwise its one line.
    private static func reason(_ attempt: () throws -> Void) -> String? {
        do {
            try attempt()
            return nil
        } catch let error as UNITIError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// Nil when `kind` may be read; otherwise the line that says it is not, and how to allow it.
    private func permissionNotice(for kind: SensorKind, localizer: Localizer) throws -> String? {
        if kind == .microphone, microphoneAllowedForThisAnswer { return nil }
        let arguments = ["subject": kind.localizedSubject(localizer), "sensor": kind.rawValue]
        switch try permissions.permission(for: kind) {
        case .allowed: return nil
        case .refused: return localizer("core.sensors.notice.refused", arguments)
        case nil: return localizer("core.sensors.notice.notAsked", arguments)
        }
    }
}

extension ModuleContext {
    /// The sensors questionnaires read while the person answers, with the person's permissions.
    public var sensors: QuestionnaireSensors { QuestionnaireSensors(services: services) }
}
