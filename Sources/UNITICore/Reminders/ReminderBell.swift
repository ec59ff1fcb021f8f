/// Makes a due reminder audible. The terminal bell for now; once audio exists, an
/// implementation plays the module's tone (``PlannedReminder/tone``).
public protocol ReminderBell: Sendable {
    func ring(for reminder: PlannedReminder)
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

/// A bell that stays silent (tests, `--json`).
public struct SilentBell: ReminderBell {
    public init() {}
    public func ring(for reminder: PlannedReminder) {}
}
