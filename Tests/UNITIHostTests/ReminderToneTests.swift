import Foundation
import Testing
import TrackYourTinnitus
import UNITICore
@testable import UNITIHost

/// The shell's reminder bell finds the tone through the registry: the reminder's own module
/// renders it, and a module without that tone leaves the terminal bell to ring.
@Suite("Reminder tones through the shell", .timeLimit(.minutes(10)))
struct ReminderToneTests {
    static func reminder(module: String, name: String, tone: String?) -> PlannedReminder {
        PlannedReminder(moduleID: module, moduleName: name, ruleID: "checkin", questionnaireID: nil,
                        date: Date(timeIntervalSince1970: 1_800_000_000), localDate: LocalDate(year: 2027, month: 1, day: 15),
                        localTime: TimeOfDay(hour: 10, minute: 0), command: "\(module) fill", tone: tone, sound: true)
    }

    @Test("a tyt reminder plays tyt's ringtone of that name; a son reminder (son has no tones) opens no output")
    func toneComesFromTheRemindersModule() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        defer { fixture.remove() }
        let path = fixture.directory + "/bell.wav"
        let opened = LockedValue(0)
        let bell = fixture.shell.reminderBell(openOutput: { format in
            opened.withValue { $0 += 1 }
            return try WAVFileSink(path: path, format: format)
        }, waits: true)

        bell.ring(for: Self.reminder(module: "tyt", name: "TrackYourTinnitus", tone: "low-pulse"))
        let expected = try #require(TrackYourTinnitusModule().reminderTone(named: "low-pulse"))
        let reader = try WAVReader(path: path)
        var played = [Int16](repeating: 0, count: reader.frameCount * reader.format.channels)
        _ = played.withUnsafeMutableBufferPointer { reader.read(into: $0) }
        #expect(reader.format == expected.format)
        #expect(played == expected.samples)
        #expect(opened.value == 1)

        bell.ring(for: Self.reminder(module: "son", name: "ShadesOfNoise", tone: "low-pulse"))
        bell.ring(for: Self.reminder(module: "tyt", name: "TrackYourTinnitus", tone: "no-such-tone"))
        #expect(opened.value == 1)
    }
}
