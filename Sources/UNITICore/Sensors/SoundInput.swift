/// Where the microphone sensor hears from: the capture device, or a recording in its place.
///
/// The engine never opens ALSA itself; it opens the input it was given, so a test hands it a
/// recording or synthetic sound, and `tyt fill --noise-from FILE.wav` a file. An input is
/// opened only when a questionnaire asks for the level and the person allowed it.
public struct SoundInput: Sendable {
    /// A live input (a microphone) is read while the person answers and stops when they finish;
    /// a recording is read to its end, so its level is the level of the whole file.
    public let isLive: Bool
    private let opening: @Sendable () throws -> any AudioSource

    /// Any input; `open` throws a one-line `UNITIError` when there is nothing to read from.
    public init(isLive: Bool, open: @escaping @Sendable () throws -> any AudioSource) {
        self.isLive = isLive
        self.opening = open
    }

    /// Opens the input for one reading; throws a one-line reason when it cannot.
    public func open() throws -> any AudioSource {
        try opening()
    }

    /// The ALSA capture device (`default` reaches PipeWire and PulseAudio too), mono 44.1 kHz.
    public static func captureDevice(named device: String = "default") -> SoundInput {
        SoundInput(isLive: true) { try ALSADevice.openCapture(name: device) }
    }

    /// A 16-bit PCM WAV file read whole. The file is checked now, so a wrong path or an empty
    /// file is said before the first question rather than after the last.
    public static func recording(path: String) throws -> SoundInput {
        let reader = try WAVReader(path: path)
        guard reader.frameCount > 0 else {
            throw UNITIError(L("core.sensors.microphone.emptyRecording", ["path": path]))
        }
        return SoundInput(isLive: false) { try WAVFileSource(path: path) }
    }
}
