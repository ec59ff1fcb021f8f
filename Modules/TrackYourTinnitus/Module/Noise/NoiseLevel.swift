import Foundation
import UNITICore

/// Measures the ambient noise level as RMS dBFS (thesis FR6): from a WAV recording
/// (`tyt fill --noise-from FILE.wav`) or from the microphone while the questionnaire is answered.
enum NoiseLevel {
    /// The RMS level of a whole WAV file.
    static func ofRecording(path: String) throws -> Double {
        let source = try WAVFileSource(path: path)
        var meter = LevelMeter()
        var block = [Int16](repeating: 0, count: 8192 * source.format.channels)
        while true {
            let frames = try block.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            if frames == 0 { break }
            block.withUnsafeBufferPointer { meter.add(UnsafeBufferPointer(rebasing: $0[0..<(frames * source.format.channels)])) }
        }
        guard meter.sampleCount > 0 else { throw UNITIError(L("tyt.noise.emptyRecording", ["path": path])) }
        return meter.rmsDBFS
    }
}

/// Records the microphone on a background thread while the person answers, and gives the RMS
/// level when stopped. The capture source is used only by that thread after `start`; the meter
/// and the stop flag are shared under a lock (hence unchecked Sendable).
final class MicrophoneLevelRecording: @unchecked Sendable {
    private let lock = NSLock()
    private var meter = LevelMeter()
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)
    private let source: any AudioSource
    /// Longer check-ins are unusual; two minutes of sound describe the surroundings well enough.
    static let maximumSeconds = 120.0

    private init(source: any AudioSource) {
        self.source = source
    }

    /// Opens the default capture device and starts measuring; throws a one-line reason when
    /// there is no microphone.
    static func start() throws -> MicrophoneLevelRecording {
        let recording = MicrophoneLevelRecording(source: try ALSADevice.openCapture())
        Thread.detachNewThread { recording.capture() }
        return recording
    }

    private func capture() {
        let channels = source.format.channels
        var remaining = source.format.frames(seconds: Self.maximumSeconds)
        var block = [Int16](repeating: 0, count: 2048 * channels)
        while remaining > 0, !lock.withLock({ stopped }) {
            guard let frames = try? block.withUnsafeMutableBufferPointer({ try source.read(into: $0) }), frames > 0 else { break }
            lock.withLock { block.withUnsafeBufferPointer { meter.add(UnsafeBufferPointer(rebasing: $0[0..<(frames * channels)])) } }
            remaining -= frames
        }
        finished.signal()
    }

    /// Stops and returns the level, nil when nothing was captured.
    func stop() -> Double? {
        lock.withLock { stopped = true }
        finished.wait()
        return lock.withLock { meter.sampleCount > 0 ? meter.rmsDBFS : nil }
    }
}
