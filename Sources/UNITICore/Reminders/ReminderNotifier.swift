import Foundation

/// Shows a due reminder to the person. The shell prints one line; the `reminders run` daemon
/// prefers a desktop notification.
public protocol ReminderNotifier: Sendable {
    /// Delivers the reminder and returns the channel used (`terminal`, `desktop`), which the
    /// delivery log records.
    func deliver(_ reminder: PlannedReminder) -> String
}

extension PlannedReminder {
    /// The one line that announces this reminder: module, time and the command to type.
    public func announcement(in timeZone: TimeZone) -> String {
        let time = "\(TimeOfDay(localTimeOf: date, in: timeZone))"
        if let message {
            return L("reminders.dueWithMessage", ["module": moduleName, "time": time, "message": message, "command": command])
        }
        return L("reminders.due", ["module": moduleName, "time": time, "command": command])
    }
}

extension TimeOfDay {
    /// The wall-clock time (to the minute) of an instant in a zone.
    public init(localTimeOf date: Date, in timeZone: TimeZone) {
        let local = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        self.init(minutes: LocalDate.floorMod(local, 86_400) / 60)
    }
}

/// One line on the console and the bell.
public struct TerminalNotifier: ReminderNotifier {
    let console: Console
    let bell: any ReminderBell
    let timeZone: TimeZone

    public init(console: Console, bell: any ReminderBell, timeZone: TimeZone) {
        self.console = console
        self.bell = bell
        self.timeZone = timeZone
    }

    public func deliver(_ reminder: PlannedReminder) -> String {
        bell.ring(for: reminder)
        console.line(reminder.announcement(in: timeZone))
        return "terminal"
    }
}

/// A desktop notification through `notify-send` (libnotify) when it is on the PATH; otherwise,
/// or when it fails, the terminal.
public struct DesktopNotifier: ReminderNotifier {
    let executable: String?
    let fallback: TerminalNotifier
    let timeZone: TimeZone

    public init(environment: [String: String], fallback: TerminalNotifier, timeZone: TimeZone) {
        self.executable = Self.find("notify-send", in: environment["PATH"] ?? "")
        self.fallback = fallback
        self.timeZone = timeZone
    }

    public var usesDesktop: Bool { executable != nil }

    public func deliver(_ reminder: PlannedReminder) -> String {
        guard let executable else { return fallback.deliver(reminder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--app-name=UNITI", reminder.moduleName, reminder.announcement(in: timeZone)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus == 0 {
                // The module's own tone, not a sound-theme name the desktop would not know.
                fallback.bell.ring(for: reminder)
                return "desktop"
            }
        } catch {}
        return fallback.deliver(reminder)
    }

    static func find(_ name: String, in path: String) -> String? {
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
