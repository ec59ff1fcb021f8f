import Foundation

/// The keys of the terminal player view (FA04–FA09): space play/pause, s stop, ←/→ (or b/f)
/// seek 10 s, l choose the loop duration (cycles off → 1 → 2 → 5 → 10 min → unlimited → off),
/// q leave.
public enum PlayerKey: Sendable, Hashable {
    case togglePlay, stop, back, forward, cycleLoop, leave

    /// The keys found in bytes read from a terminal in raw mode (arrow keys are escape sequences).
    public static func parse(_ bytes: [UInt8]) -> [PlayerKey] {
        var keys: [PlayerKey] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") {
                if bytes[i + 2] == UInt8(ascii: "D") { keys.append(.back) }
                if bytes[i + 2] == UInt8(ascii: "C") { keys.append(.forward) }
                i += 3
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "p"): keys.append(.togglePlay)
            case UInt8(ascii: "s"): keys.append(.stop)
            case UInt8(ascii: "b"), UInt8(ascii: ","): keys.append(.back)
            case UInt8(ascii: "f"), UInt8(ascii: "."): keys.append(.forward)
            case UInt8(ascii: "l"): keys.append(.cycleLoop)
            case UInt8(ascii: "q"), 0x03, 0x04: keys.append(.leave) // q, Ctrl-C, Ctrl-D
            default: break
            }
            i += 1
        }
        return keys
    }
}

extension PlayerEngine {
    /// Applies a key; returns false when the person leaves the player.
    public func handle(_ key: PlayerKey) -> Bool {
        switch key {
        case .togglePlay: isPlaying ? pause() : play()
        case .stop: stop()
        case .back: seek(by: -10)
        case .forward: seek(by: 10)
        case .cycleLoop:
            let choices: [LoopDuration?] = [nil] + LoopDuration.choices
            let index = choices.firstIndex(where: { $0 == loop }) ?? 0
            setLoop(choices[(index + 1) % choices.count])
        case .leave:
            pause()
            return false
        }
        return true
    }
}
