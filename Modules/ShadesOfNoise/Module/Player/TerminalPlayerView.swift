import Foundation
import UNITICore

/// The player on a terminal: one status line (title, play state, position, progress bar,
/// length, loop) redrawn while the sound plays, and single keys to control it (`PlayerKey`).
/// The terminal is switched to raw mode for the keys and always restored.
struct TerminalPlayerView {
    let title: String
    let console: Console

    /// Plays until the person leaves (q); returns when they do.
    func run(engine: PlayerEngine, source: any AudioSource, sink: any AudioSink) throws {
        var saved = termios()
        let isTTY = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTTY {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        defer {
            if isTTY { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
            console.line()
        }
        console.line(L("son.player.keys"))
        let channels = sink.format.channels
        var buffer = [Int16](repeating: 0, count: SessionRunner.blockFrames * channels)
        var lastDraw = -1
        running: while true {
            let keys = PlayerKey.parse(readAvailableBytes())
            for key in keys where !engine.handle(key) {
                break running
            }
            if !keys.isEmpty { lastDraw = -1 } // show the new state at once
            if Interrupt.isRequested { engine.pause(); break }
            let frames = engine.advance(maxFrames: SessionRunner.blockFrames)
            if frames > 0 {
                let count = frames * channels
                let read = try buffer.withUnsafeMutableBufferPointer {
                    try source.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<count]))
                }
                try buffer.withUnsafeBufferPointer { try sink.write(UnsafeBufferPointer(rebasing: $0[0..<(read * channels)])) }
            } else {
                usleep(50_000)
            }
            let tenths = Int(engine.positionSeconds * 10)
            if tenths != lastDraw {
                lastDraw = tenths
                console.write("\r" + statusLine(engine))
            }
        }
    }

    func statusLine(_ engine: PlayerEngine) -> String {
        let width = 20
        let filled = min(width, Int(Double(width) * engine.positionSeconds / max(engine.lengthSeconds, 1)))
        let bar = String(repeating: "=", count: filled) + String(repeating: "-", count: width - filled)
        let loop: String
        switch engine.loop {
        case nil: loop = L("son.loop.none")
        case .unlimited?: loop = L("son.loop.unlimited")
        case .minutes(let m)?: loop = L("son.loop.minutes", ["minutes": String(m)])
        }
        let state = engine.isPlaying ? ">" : "||"
        return "\(state) \(title)  \(formatDuration(engine.positionSeconds)) [\(bar)] \(formatDuration(engine.lengthSeconds))  "
            + L("son.player.loop", ["loop": loop]) + "   "
    }

    private func readAvailableBytes() -> [UInt8] {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        return count > 0 ? Array(bytes[0..<count]) : [.init(ascii: "q")]
    }
}
