import Foundation
import UNITICore

/// The player's state: position on the file's time line, playing or paused, and the loop
/// (FA04–FA09). It decides how many frames to hand out next and where the file restarts; the
/// audio itself comes from elsewhere, so the rules here are tested without sound.
///
/// - play (FA05) continues at the current position; pause (FA06) keeps it; stop (FA07) pauses
///   and returns to 0:00; seek (FA08) moves by seconds within the file.
/// - Without a loop, playback pauses at the end of the file. With a limited loop it restarts
///   at the end until the loop's time is used up (`LoopPlan`); an unlimited loop restarts forever.
public final class PlayerEngine {
    public let lengthFrames: Int
    public let sampleRate: Int
    public private(set) var position = 0
    public private(set) var isPlaying = false
    public private(set) var loop: LoopDuration?
    private var plan: LoopPlan?
    private var restartsLeft = 0
    public let timer: ListeningTimer
    /// Whether anything was played in this session (the rating is asked only then, FA10).
    public private(set) var hasPlayed = false

    public init(lengthSeconds: Double, sampleRate: Int, clock: any WallClock) {
        self.sampleRate = sampleRate
        self.lengthFrames = max(1, Int((lengthSeconds * Double(sampleRate)).rounded()))
        self.timer = ListeningTimer(clock: clock)
    }

    public var positionSeconds: Double { Double(position) / Double(sampleRate) }
    public var lengthSeconds: Double { Double(lengthFrames) / Double(sampleRate) }

    public func play() {
        if position >= lengthFrames, loop == nil { position = 0 }
        isPlaying = true
        hasPlayed = true
        timer.start()
    }

    public func pause() {
        isPlaying = false
        timer.pause()
    }

    public func stop() {
        pause()
        position = 0
        setLoop(nil)
    }

    /// Moves by `seconds` (negative: back), kept within the file; a limited loop is re-planned
    /// from the new position, since its time counts from where playback is.
    public func seek(by seconds: Double) {
        let target = position + Int((seconds * Double(sampleRate)).rounded())
        position = min(max(0, target), lengthFrames - 1)
        if let loop { setLoop(loop) }
    }

    /// Starts (or with nil ends) a loop counted from the current position.
    public func setLoop(_ duration: LoopDuration?) {
        loop = duration
        switch duration {
        case .minutes(let minutes)?:
            let plan = LoopPlan.plan(duration: minutes * 60 * sampleRate, length: lengthFrames, position: position)
            self.plan = plan
            restartsLeft = plan.restarts
        case .unlimited?, nil:
            plan = nil
            restartsLeft = 0
        }
    }

    /// Plays up to `maxFrames` frames: returns how many frames to render now (0 when paused).
    /// At the end of the file it restarts or pauses as the loop says; a finished loop pauses.
    public func advance(maxFrames: Int) -> Int {
        guard isPlaying, maxFrames > 0 else { return 0 }
        if position >= lengthFrames {
            if loop == .unlimited || restartsLeft > 0 {
                if loop != .unlimited { restartsLeft -= 1 }
                position = 0
            } else {
                finish()
                return 0
            }
        }
        var limit = lengthFrames - position
        if let plan, restartsLeft == 0 {
            limit = min(limit, plan.stopFrame - position)
            if limit <= 0 {
                finish()
                return 0
            }
        }
        let frames = min(maxFrames, limit)
        position += frames
        return frames
    }

    private func finish() {
        pause()
        if plan != nil {
            loop = nil
            plan = nil
        }
    }
}
