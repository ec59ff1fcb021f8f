import Foundation

/// Reads the position from gpsd while the person answers, on a thread of its own so the first
/// question never waits for a fix: started when answering starts, taken with ``stop()`` when
/// the sheet is finished (Track Your Stress thesis, FR14/FR15).
///
/// The reading ends on its own at the client's deadline, so ``stop()`` waits at most for what
/// is left of it; after a long answer the fix (or the reason there is none) is there at once.
/// ``cancel()`` ends the reading within 50 ms without waiting for it. As in
/// ``MicrophoneLevelCapture``, the thread hands its outcome over before it signals.
public final class LocationCapture: Sendable {
    private let stopRequested = LockedValue(false)
    private let outcome = LockedValue<Result<GPSDFix, UNITIError>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    private init() {}

    /// Starts reading from `client`; problems (no gpsd, no fix) are told by ``stop()``.
    public static func start(_ client: GPSDClient) -> LocationCapture {
        let capture = LocationCapture()
        Thread.detachNewThread { capture.read(client) }
        return capture
    }

    private func read(_ client: GPSDClient) {
        let result: Result<GPSDFix, UNITIError>?
        do {
            result = try client.readFix { self.stopRequested.value }.map { .success($0) }
        } catch {
            result = .failure(error)
        }
        outcome.value = result
        finished.signal()
    }

    /// The fix, waiting for the reading to end (at most the rest of the client's timeout);
    /// throws the one-line reason when there is none.
    public func stop() throws -> GPSDFix {
        finished.wait()
        finished.signal()  // a second stop finds the thread done, too
        guard let outcome = outcome.value else {
            // Only a cancelled reading ends without an outcome.
            throw UNITIError(L("core.sensors.location.cancelled"))
        }
        return try outcome.get()
    }

    /// Ends the reading without waiting for it; nothing is kept.
    public func cancel() {
        stopRequested.value = true
    }
}
