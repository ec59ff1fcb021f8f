import Foundation
import Testing
@testable import ShadesOfNoise
import UNITICore

/// The loop arithmetic of the thesis (5.1) and the player's rules (FA05–FA09).
@Suite("Player", .timeLimit(.minutes(10)))
struct PlayerEngineTests {
    let rate = 100 // frames per second: keeps the arithmetic readable

    /// Plays until the engine pauses; returns the frames played.
    func playOut(_ engine: PlayerEngine, block: Int = 37) -> Int {
        var total = 0
        while true {
            let n = engine.advance(maxFrames: block)
            if n == 0 { break }
            total += n
        }
        return total
    }

    @Test("a loop shorter than the rest of the file stops inside the current pass")
    func loopWithinPass() {
        let plan = LoopPlan.plan(duration: 60, length: 200, position: 50)
        #expect(plan == LoopPlan(restarts: 0, stopFrame: 110))
    }

    @Test("a longer loop restarts the file and stops at the remainder (thesis 5.1)")
    func loopAcrossRestarts() {
        // 90 s file at 30 s, loop 2 min: 60 s to the end, then 60 s more = no full pass,
        // one restart, stop at 60 s.
        #expect(LoopPlan.plan(duration: 120, length: 90, position: 30) == LoopPlan(restarts: 1, stopFrame: 60))
        // 60 s file from 0, 5 min: 60 to the end, 240 left = 4 full passes → 5 restarts, stop at 0.
        #expect(LoopPlan.plan(duration: 300, length: 60, position: 0) == LoopPlan(restarts: 5, stopFrame: 0))
        // 70 s file at 20 s, 10 min: 50 to the end, 550 left = 7 passes (490) + 60.
        #expect(LoopPlan.plan(duration: 600, length: 70, position: 20) == LoopPlan(restarts: 8, stopFrame: 60))
    }

    @Test("the player plays exactly the loop's minutes counted from the current position",
          arguments: [(0.0, 1), (30.0, 2), (89.0, 5), (45.5, 10)])
    func loopPlaysItsDuration(start: Double, minutes: Int) {
        let engine = PlayerEngine(lengthSeconds: 90, sampleRate: rate, clock: FixedClock(Date()))
        engine.seek(by: start)
        engine.setLoop(.minutes(minutes))
        engine.play()
        #expect(playOut(engine) == minutes * 60 * rate)
        #expect(!engine.isPlaying)
        #expect(engine.loop == nil)
    }

    @Test("without a loop the file plays to its end once; play again starts at 0:00")
    func noLoop() {
        let engine = PlayerEngine(lengthSeconds: 90, sampleRate: rate, clock: FixedClock(Date()))
        engine.seek(by: 80)
        engine.play()
        #expect(playOut(engine) == 10 * rate)
        engine.play()
        #expect(engine.position == 0)
        #expect(playOut(engine) == 90 * rate)
    }

    @Test("an unlimited loop keeps restarting")
    func unlimited() {
        let engine = PlayerEngine(lengthSeconds: 2, sampleRate: rate, clock: FixedClock(Date()))
        engine.setLoop(.unlimited)
        engine.play()
        var total = 0
        for _ in 0..<1000 where total < 10 * 200 {
            let n = engine.advance(maxFrames: 33)
            if n == 0 { break }
            total += n
        }
        #expect(total == 10 * 200) // ten passes of the 2 s file, and still going
        #expect(engine.isPlaying)
        #expect(engine.advance(maxFrames: 33) == 33)
    }

    @Test("stop pauses and returns to 0:00; seeking stays inside the file")
    func stopAndSeek() {
        let engine = PlayerEngine(lengthSeconds: 60, sampleRate: rate, clock: FixedClock(Date()))
        engine.play()
        _ = engine.advance(maxFrames: 1500)
        engine.seek(by: -10)
        #expect(engine.position == 500)
        engine.seek(by: -30)
        #expect(engine.position == 0)
        engine.seek(by: 500)
        #expect(engine.position == 60 * rate - 1)
        engine.stop()
        #expect(engine.position == 0)
        #expect(!engine.isPlaying)
    }

    @Test("listening time counts playing only, not pauses (injected clock)")
    func listeningTimeExcludesPauses() {
        let clock = FixedClock(Date(timeIntervalSince1970: 1_000_000))
        let engine = PlayerEngine(lengthSeconds: 600, sampleRate: rate, clock: clock)
        engine.play()
        clock.advance(by: 60)
        engine.pause()
        clock.advance(by: 3600) // a long pause
        engine.play()
        clock.advance(by: 20)
        #expect(engine.timer.listenedSeconds == 80)
        engine.stop()
        clock.advance(by: 100)
        #expect(engine.timer.listenedSeconds == 80)
        #expect(engine.hasPlayed)
    }

    @Test("loop durations parse 1, 2, 5, 10 and unlimited only")
    func loopDurations() throws {
        #expect(try LoopDuration(parsing: "5") == .minutes(5))
        #expect(try LoopDuration(parsing: "unlimited") == .unlimited)
        #expect(throws: UNITIError.self) { try LoopDuration(parsing: "3") }
        #expect(throws: UNITIError.self) { try LoopDuration(parsing: "ten") }
    }
}

@Suite("Player keys", .timeLimit(.minutes(10)))
struct PlayerKeyTests {
    @Test("keys and arrow sequences map to player actions")
    func parsing() {
        #expect(PlayerKey.parse(Array(" sq".utf8)) == [.togglePlay, .stop, .leave])
        #expect(PlayerKey.parse([0x1B, 0x5B, 0x44, 0x1B, 0x5B, 0x43, UInt8(ascii: "l")]) == [.back, .forward, .cycleLoop])
        #expect(PlayerKey.parse(Array("xyz".utf8)).isEmpty)
    }

    @Test("keys drive the engine: pause, seek, loop choice cycles, stop, leave")
    func handling() {
        let engine = PlayerEngine(lengthSeconds: 60, sampleRate: 100, clock: FixedClock(Date()))
        #expect(engine.handle(.togglePlay))
        #expect(engine.isPlaying)
        #expect(engine.handle(.forward))
        #expect(engine.position == 1000)
        #expect(engine.handle(.cycleLoop))
        #expect(engine.loop == .minutes(1))
        for _ in 0..<4 { _ = engine.handle(.cycleLoop) }
        #expect(engine.loop == .unlimited)
        _ = engine.handle(.cycleLoop)
        #expect(engine.loop == nil)
        #expect(engine.handle(.togglePlay))
        #expect(!engine.isPlaying)
        #expect(engine.handle(.stop))
        #expect(engine.position == 0)
        #expect(!engine.handle(.leave))
    }
}
