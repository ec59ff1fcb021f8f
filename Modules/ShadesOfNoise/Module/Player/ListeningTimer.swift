import Foundation
import UNITICore

/// Adds up the time a sound was actually playing: each start notes the clock, each pause or
/// stop adds the time since (Shades Of Noise thesis 5.1, timestampStart/Stop/Difference), so
/// pauses do not count. The clock is injected, so tests can pause for an hour in no time.
public final class ListeningTimer {
    private let clock: any WallClock
    private var runningSince: Date?
    private var accumulated: TimeInterval = 0

    public init(clock: any WallClock) {
        self.clock = clock
    }

    public var isRunning: Bool { runningSince != nil }

    public func start() {
        if runningSince == nil { runningSince = clock.now }
    }

    public func pause() {
        guard let since = runningSince else { return }
        accumulated += max(0, clock.now.timeIntervalSince(since))
        runningSince = nil
    }

    /// Seconds listened so far, including the current stretch.
    public var listenedSeconds: TimeInterval {
        accumulated + (runningSince.map { max(0, clock.now.timeIntervalSince($0)) } ?? 0)
    }
}

/// A clock that follows the audio rendered rather than the wall: rendering ten minutes into
/// a file takes a fraction of a second, but the session it records is ten minutes long.
public final class AudioTimeClock: WallClock, @unchecked Sendable {
    // Single-threaded by design: only the render loop that owns it advances and reads it.
    // Counted in frames, so an hour of small steps adds up exactly.
    private let start: Date
    private var frames = 0
    private let sampleRate: Int
    public let timeZone: TimeZone

    public init(start: Date, sampleRate: Int, timeZone: TimeZone) {
        self.start = start
        self.sampleRate = sampleRate
        self.timeZone = timeZone
    }

    public var now: Date { start.addingTimeInterval(Double(frames) / Double(sampleRate)) }

    public func advance(frames: Int) {
        self.frames += frames
    }

    /// Audio time passes only as audio is rendered; a wait is that much silence.
    public func sleep(seconds: TimeInterval) {
        advance(frames: Int((seconds * Double(sampleRate)).rounded()))
    }
}
