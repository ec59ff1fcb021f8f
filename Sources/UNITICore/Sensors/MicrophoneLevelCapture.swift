import Foundation

/// Measures the level of a ``SoundInput`` while the person answers, on a thread of its own so
/// the questions never wait for the sound card; ``stop()`` gives the RMS level in dBFS.
///
/// A live input is read until ``stop()`` (at most ``maximumSeconds``); a recording to its end,
/// and ``stop()`` waits for that. The audio source belongs to the capture thread alone; the
/// stop flag and the outcome are shared through locks, and the thread hands its outcome over
/// before it signals, so ``stop()`` reads it only once the thread is done.
public final class MicrophoneLevelCapture: Sendable {
    /// Longer answering is unusual; two minutes of sound describe the surroundings well enough
    /// (Track Your Tinnitus thesis, FR6).
    public static let maximumSeconds = 120.0

    private let stopRequested = LockedValue(false)
    private let outcome = LockedValue<Result<Double, UNITIError>?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let isLive: Bool

    private init(isLive: Bool) {
        self.isLive = isLive
    }

    /// Opens `input` and starts measuring; throws the input's one-line reason when it cannot be
    /// opened (no capture device), never crashes.
    public static func start(_ input: SoundInput) throws -> MicrophoneLevelCapture {
        let capture = MicrophoneLevelCapture(isLive: input.isLive)
        let source = SendableSource(try input.open())
        Thread.detachNewThread { capture.measure(source.source) }
        return capture
    }

    private func measure(_ source: any AudioSource) {
        var meter = LevelMeter()
        let limit = isLive ? source.format.frames(seconds: Self.maximumSeconds) : nil
        let result: Result<Double, UNITIError>
        do {
            try meter.add(from: source, frames: limit) { !stopRequested.value }
            result = meter.sampleCount > 0 ? .success(meter.rmsDBFS) : .failure(UNITIError(L("core.sensors.microphone.noSound")))
        } catch let error as UNITIError {
            result = .failure(error)
        } catch {
            result = .failure(UNITIError(L("core.audio.captureFailed", ["reason": "\(error)"])))
        }
        outcome.value = result
        finished.signal()
    }

    /// Stops a live input (a recording is read to its end first) and returns the level in
    /// dBFS; throws a one-line reason when no sound was read.
    public func stop() throws -> Double {
        if isLive { stopRequested.value = true }
        finished.wait()
        finished.signal()  // a second stop finds the thread done, too
        guard let outcome = outcome.value else { throw UNITIError(L("core.sensors.microphone.noSound")) }
        return try outcome.get()
    }
}

/// Carries a freshly opened source to the capture thread, which is from then on its only user.
private struct SendableSource: @unchecked Sendable {
    let source: any AudioSource
    init(_ source: any AudioSource) { self.source = source }
}
