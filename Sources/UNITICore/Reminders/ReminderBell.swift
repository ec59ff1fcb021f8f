import Foundation

/// Makes a due reminder audible: the module's own tone (``PlannedReminder/tone``) through the
/// sound card when there is one, else the terminal bell.
public protocol ReminderBell: Sendable {
    func ring(for reminder: PlannedReminder)
}

/// A reminder's sound as a module renders it (Track Your Tinnitus thesis, FR4: the chosen
/// ringtone), interleaved 16-bit samples in `format`.
public struct ReminderTone: Sendable {
    public let format: AudioFormat
    public let samples: [Int16]

    public init(format: AudioFormat, samples: [Int16]) {
        self.format = format
        self.samples = samples
    }
}

/// The terminal's bell character (BEL), written only where a terminal can ring it.
public struct TerminalBell: ReminderBell {
    let console: Console

    public init(console: Console) {
        self.console = console
    }

    public func ring(for reminder: PlannedReminder) {
        guard reminder.sound, console.isTerminal else { return }
        console.write("\u{07}")
    }
}

/// Plays the module's tone for a reminder; rings `fallback` when the module has no tone for it
/// or no output opens (a machine without a sound card).
///
/// Playing takes a few seconds, so it happens on its own thread unless `waits` is set: the
/// prompt or the reminder daemon goes on at once.
public struct ToneBell: ReminderBell {
    let tone: @Sendable (PlannedReminder) -> ReminderTone?
    let openOutput: @Sendable (AudioFormat) throws -> any AudioSink
    let fallback: any ReminderBell
    let waits: Bool

    /// - Parameters:
    ///   - tone: the tone of a reminder (asked of its module), nil when it has none.
    ///   - openOutput: where the tone goes, normally the ALSA default device.
    public init(tone: @escaping @Sendable (PlannedReminder) -> ReminderTone?,
                openOutput: @escaping @Sendable (AudioFormat) throws -> any AudioSink,
                fallback: any ReminderBell, waits: Bool = false) {
        self.tone = tone
        self.openOutput = openOutput
        self.fallback = fallback
        self.waits = waits
    }

    /// The sound card's default device.
    public static func defaultOutput(_ format: AudioFormat) throws -> any AudioSink {
        try ALSADevice.openPlayback(name: "default", format: format)
    }

    public func ring(for reminder: PlannedReminder) {
        guard reminder.sound else { return }
        guard let tone = tone(reminder), !tone.samples.isEmpty,
              let output = try? openOutput(tone.format) else {
            fallback.ring(for: reminder)
            return
        }
        let playback = Playback(output: output, tone: tone)
        if waits {
            playback.run()
        } else {
            Thread { playback.run() }.start()
        }
    }

    /// Owned by the thread that plays it, and by nobody else after it starts.
    private final class Playback: @unchecked Sendable {
        let output: any AudioSink
        let tone: ReminderTone

        init(output: any AudioSink, tone: ReminderTone) {
            self.output = output
            self.tone = tone
        }

        func run() {
            // A device that fails half way leaves a shortened tone; the reminder line was shown.
            try? tone.samples.withUnsafeBufferPointer { try output.write($0) }
            try? output.finish()
        }
    }
}

/// A bell that stays silent (tests, `--json`).
public struct SilentBell: ReminderBell {
    public init() {}
    public func ring(for reminder: PlannedReminder) {}
}
