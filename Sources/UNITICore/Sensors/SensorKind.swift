import UNITIProtocol

/// A sensor UNITI reads while a questionnaire is answered, by the name the person types
/// (`sensors allow microphone`) and the key of its permission (`sensors.microphone`).
///
/// A questionnaire names its sensors in the shared format (``QuestionnaireSensor``:
/// `microphoneLevel`, `location`); this is the same set seen from the person's side, closed,
/// so every sensor has a permission, a name in both languages and a place in `sensors`.
public enum SensorKind: String, CaseIterable, Sendable, Codable {
    /// The ambient sound level in dBFS, from the capture device (Track Your Tinnitus thesis, FR6).
    case microphone
    /// The position, from gpsd (Track Your Stress thesis, FR14/FR15).
    case location

    /// The kind a questionnaire asks for; nil for a sensor this version does not know (the
    /// validator refuses such a definition before anything is started).
    public init?(_ sensor: QuestionnaireSensor) {
        switch sensor {
        case .microphoneLevel: self = .microphone
        case .location: self = .location
        default: return nil
        }
    }

    /// How a questionnaire definition names this sensor.
    public var questionnaireSensor: QuestionnaireSensor {
        switch self {
        case .microphone: return .microphoneLevel
        case .location: return .location
        }
    }

    /// What the sensor reads, as the subject of a sentence ("The ambient noise level").
    public func localizedSubject(_ localizer: Localizer = CurrentLanguage.localizer) -> String {
        localizer("core.sensors.\(rawValue).subject")
    }
}

/// Typed as `microphone`/`location`, or in German as `mikrofon`/`standort`.
extension SensorKind: LocalizedArgumentWords {
    public static var wordsKey: String { "core.sensors.words" }
}
