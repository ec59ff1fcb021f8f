import CALSA
import Foundation

/// Everything that talks to ALSA (libasound): playback, capture and device listing. The rest of
/// UNITI sees only `AudioSink`, `AudioSource` and `AudioDeviceInfo`, so this is the one file
/// to change for another sound system. PipeWire and PulseAudio provide ALSA devices, so
/// "default" reaches them too.
public enum ALSADevice {
    /// Opens a playback device. Without one, the error is a single line that suggests
    /// rendering to a file instead.
    public static func openPlayback(name: String, format: AudioFormat) throws -> any AudioSink {
        let pcm = try open(name: name, stream: SND_PCM_STREAM_PLAYBACK, format: format, noDeviceKey: "core.audio.noOutputDevice")
        return ALSAPlaybackSink(pcm: pcm, format: format)
    }

    /// Opens a capture device (the microphone) for level measurement.
    public static func openCapture(name: String = "default", format: AudioFormat = .cdMono) throws -> any AudioSource {
        let pcm = try open(name: name, stream: SND_PCM_STREAM_CAPTURE, format: format, noDeviceKey: "core.audio.noInputDevice")
        return ALSACaptureSource(pcm: pcm, format: format)
    }

    /// The PCM devices ALSA knows (from its configuration and the sound cards present).
    public static func devices() -> [AudioDeviceInfo] {
        uniti_alsa_silence_errors()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func text(_ hint: UnsafeMutableRawPointer, _ key: String) -> String? {
            guard let value = snd_device_name_get_hint(hint, key) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var result: [AudioDeviceInfo] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = text(hint, "NAME") else { continue }
            let description = (text(hint, "DESC") ?? "").replacingOccurrences(of: "\n", with: " — ")
            let io = text(hint, "IOID")
            result.append(AudioDeviceInfo(name: name, description: description,
                                          output: io == nil || io == "Output", input: io == nil || io == "Input"))
        }
        return result
    }

    /// Number of sound cards the kernel reports (0 on a headless machine).
    public static func cardCount() -> Int {
        var card: Int32 = -1
        var count = 0
        while snd_card_next(&card) == 0, card >= 0 { count += 1 }
        return count
    }

    private static func open(name: String, stream: snd_pcm_stream_t, format: AudioFormat, noDeviceKey: String) throws -> OpaquePointer {
        uniti_alsa_silence_errors()
        var pcm: OpaquePointer?
        var status = snd_pcm_open(&pcm, name, stream, 0)
        guard status >= 0, let pcm else {
            throw UNITIError(L(noDeviceKey, ["device": name, "reason": reason(status)]))
        }
        // 100 ms of buffering: low enough for pause and seek to feel immediate.
        status = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
                                    UInt32(format.channels), UInt32(format.sampleRate), 1, 100_000)
        guard status >= 0 else {
            snd_pcm_close(pcm)
            throw UNITIError(L("core.audio.deviceFormat", ["device": name, "reason": reason(status)]))
        }
        return pcm
    }

    static func reason(_ status: Int32) -> String {
        String(cString: snd_strerror(status))
    }
}

/// A PCM device as listed by `son devices`.
public struct AudioDeviceInfo: Sendable, Codable, Hashable {
    public let name: String
    public let description: String
    public let output: Bool
    public let input: Bool
}

/// Playback through an open ALSA PCM.
final class ALSAPlaybackSink: AudioSink {
    private var pcm: OpaquePointer?
    let format: AudioFormat

    init(pcm: OpaquePointer, format: AudioFormat) {
        self.pcm = pcm
        self.format = format
    }

    deinit {
        if let pcm { snd_pcm_close(pcm) }
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let pcm, var base = samples.baseAddress else { return }
        var frames = samples.count / format.channels
        while frames > 0 {
            var written = snd_pcm_writei(pcm, base, snd_pcm_uframes_t(frames))
            if written < 0 {
                // Underruns and suspends are recoverable; anything else ends playback.
                written = snd_pcm_sframes_t(snd_pcm_recover(pcm, Int32(written), 1))
                if written < 0 {
                    throw UNITIError(L("core.audio.playbackFailed", ["reason": ALSADevice.reason(Int32(written))]))
                }
                continue
            }
            frames -= Int(written)
            base += Int(written) * format.channels
        }
    }

    func finish() throws {
        guard let pcm else { return }
        snd_pcm_drain(pcm)
        snd_pcm_close(pcm)
        self.pcm = nil
    }
}

/// Capture from an open ALSA PCM.
final class ALSACaptureSource: AudioSource {
    private let pcm: OpaquePointer
    let format: AudioFormat

    init(pcm: OpaquePointer, format: AudioFormat) {
        self.pcm = pcm
        self.format = format
    }

    deinit { snd_pcm_close(pcm) }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let frames = buffer.count / format.channels
        while true {
            let read = snd_pcm_readi(pcm, base, snd_pcm_uframes_t(frames))
            if read >= 0 { return Int(read) }
            let recovered = snd_pcm_recover(pcm, Int32(read), 1)
            if recovered < 0 {
                throw UNITIError(L("core.audio.captureFailed", ["reason": ALSADevice.reason(recovered)]))
            }
        }
    }
}
