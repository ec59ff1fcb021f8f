import UNITICore

/// How long the player keeps looping a sound (FA09): a number of minutes from the current
/// position, or until the person stops it.
public enum LoopDuration: Sendable, Hashable {
    case minutes(Int)
    case unlimited

    /// The choices the thesis offers (1, 2, 5, 10 minutes and unlimited).
    public static let choices: [LoopDuration] = [.minutes(1), .minutes(2), .minutes(5), .minutes(10), .unlimited]

    /// Parses `1`, `2`, `5`, `10` or `unlimited`.
    public init(parsing text: String) throws {
        let lowered = text.lowercased()
        if lowered == "unlimited" || lowered == "endless" {
            self = .unlimited
            return
        }
        guard let value = Int(lowered), let choice = Self.choices.first(where: { $0 == .minutes(value) }) else {
            throw UNITIError(L("son.play.badMinutes", ["value": text]))
        }
        self = choice
    }

    /// As stored with a session: "1", "2", "5", "10" or "unlimited".
    public var storedValue: String {
        switch self {
        case .minutes(let minutes): return String(minutes)
        case .unlimited: return "unlimited"
        }
    }
}

/// Where a limited loop ends, computed as in the Shades Of Noise thesis (5.1,
/// `calculateLoopsAndRemainder`): the duration counts from the current position; if it ends
/// before the end of the file, playback stops there; otherwise the rest of the current pass is
/// subtracted, the remaining time divided by the file length gives the number of further
/// passes, and what is left over is where the last pass stops.
public struct LoopPlan: Sendable, Hashable {
    /// Times the file restarts from 0:00 before the last pass.
    public let restarts: Int
    /// Position (frames) in the last pass at which playback stops.
    public let stopFrame: Int

    public init(restarts: Int, stopFrame: Int) {
        self.restarts = restarts
        self.stopFrame = stopFrame
    }

    /// - Parameters: all in frames.
    public static func plan(duration: Int, length: Int, position: Int) -> LoopPlan {
        let remainingInPass = length - position
        if duration <= remainingInPass {
            return LoopPlan(restarts: 0, stopFrame: position + duration)
        }
        let afterThisPass = duration - remainingInPass
        let fullPasses = afterThisPass / length
        return LoopPlan(restarts: fullPasses + 1, stopFrame: afterThisPass - fullPasses * length)
    }
}
