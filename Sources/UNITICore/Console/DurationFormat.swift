import Foundation

/// A length of time the way players and statistics show it: `mm:ss` below an hour, `h:mm:ss`
/// from an hour on (Shades Of Noise thesis, FA11–FA13: session lengths and listening time).
/// One format for every module, so a session reads the same in `son stats`, the player and any
/// other module that shows how long something took. Fractions of a second are cut, not rounded,
/// so a clock never shows a second that has not passed; negative times show as zero.
public func formatDuration(_ seconds: Double) -> String {
    let total = seconds.isFinite ? max(0, Int(seconds.rounded(.down))) : 0
    let hours = total / 3600, minutes = total / 60 % 60, rest = total % 60
    if hours > 0 { return String(format: "%d:%02d:%02d", hours, minutes, rest) }
    return String(format: "%02d:%02d", minutes, rest)
}
