import Foundation
import Testing
@testable import UNITICore

@Suite("iCalendar export (RFC 5545)", .timeLimit(.minutes(10)))
struct ICalendarExportTests {
    typealias F = ReminderFixtures

    /// A tiny reader for what the test needs: unfolds lines and collects VEVENT properties.
    struct ParsedCalendar {
        var lines: [String] = []
        var events: [[String: String]] = []
        var alarms = 0

        init(_ text: String) {
            let unfolded = text.replacingOccurrences(of: "\r\n ", with: "")
            lines = unfolded.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            var current: [String: String]?
            var inAlarm = false
            for line in lines {
                switch line {
                case "BEGIN:VEVENT": current = [:]
                case "END:VEVENT": events.append(current!); current = nil
                case "BEGIN:VALARM": inAlarm = true; alarms += 1
                case "END:VALARM": inAlarm = false
                default:
                    guard current != nil, let colon = line.firstIndex(of: ":") else { continue }
                    let name = String(line[..<colon])
                    let key = inAlarm ? "VALARM." + name : name
                    current![key] = String(line[line.index(after: colon)...])
                }
            }
        }
    }

    func reminders() throws -> [PlannedReminder] {
        let rule = try ReminderRule(id: "d", command: "rtm fill, then; \\relax", cadence: .daily(DailyReminders(
            fixed: FixedReminderTime.everyDay(at: F.time("02:30")) + FixedReminderTime.everyDay(at: F.time("21:15")))))
        let module = ModuleDescriptor(id: "rtm", name: "Ein sehr langes Modul mit Umlauten äöü und noch mehr Text, damit gefaltet wird",
                                      programName: "x", version: "1")
        return try ReminderPlanner(timeZone: F.berlin).plan([ModuleReminderSource(module: module, source: ReminderSource(rules: [rule]))],
                                                            from: F.date("2026-03-28 00:00"), to: F.date("2026-03-31 00:00"))
    }

    @Test("the calendar parses back: one VEVENT with a display alarm per reminder, UTC start times, CRLF, folded lines")
    func parsesBack() throws {
        let reminders = try reminders()
        #expect(reminders.count == 6)
        let text = ICalendarExport().calendar(for: reminders, stamp: F.date("2026-03-27 12:00"))
        // Every line ends in CRLF; no bare LF.
        #expect(text.hasSuffix("\r\n"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        // No physical line is longer than 75 octets; long ones were folded.
        let physical = text.components(separatedBy: "\r\n")
        #expect(physical.allSatisfy { $0.utf8.count <= 75 })
        #expect(physical.contains { $0.hasPrefix(" ") })
        // Folding never splits a UTF-8 character: every physical line is valid UTF-8 on its own.
        let bytes = Array(text.utf8)
        var lineStart = 0
        for index in bytes.indices.dropLast() where bytes[index] == 13 && bytes[index + 1] == 10 {
            #expect(String(validating: bytes[lineStart..<index], as: UTF8.self) != nil)
            lineStart = index + 2
        }

        let calendar = ParsedCalendar(text)
        #expect(calendar.lines.first == "BEGIN:VCALENDAR" && calendar.lines.last == "END:VCALENDAR")
        #expect(calendar.lines.contains("VERSION:2.0"))
        #expect(calendar.lines.contains { $0.hasPrefix("PRODID:") })
        #expect(calendar.events.count == reminders.count)
        #expect(calendar.alarms == reminders.count)
        #expect(calendar.events.allSatisfy { $0["VALARM.ACTION"] == "DISPLAY" && $0["VALARM.TRIGGER"] == "PT0M" })
        #expect(calendar.events.allSatisfy { $0["DTSTAMP"] == "20260327T110000Z" })
        // 02:30 on 2026-03-29 does not exist in Berlin and moved to 03:30 CEST = 01:30 UTC.
        #expect(calendar.events.map { $0["DTSTART"]! } == [
            "20260328T013000Z", "20260328T201500Z",
            "20260329T013000Z", "20260329T191500Z",
            "20260330T003000Z", "20260330T191500Z",
        ])
        // UIDs are unique and stable across exports.
        let uids = calendar.events.map { $0["UID"]! }
        #expect(Set(uids).count == uids.count)
        let again = ParsedCalendar(ICalendarExport().calendar(for: try self.reminders(), stamp: Date()))
        #expect(again.events.map { $0["UID"]! } == uids)
        // Text is escaped.
        #expect(calendar.events[0]["SUMMARY"]!.contains("rtm fill\\, then\\; \\\\relax"))
    }

    @Test("folding keeps lines of 75 octets and splits longer ones without breaking characters")
    func folding() {
        let short = String(repeating: "a", count: 75)
        #expect(ICalendarExport.fold(short) == short)
        let long = "SUMMARY:" + String(repeating: "ä", count: 100)
        let folded = ICalendarExport.fold(long)
        let parts = folded.components(separatedBy: "\r\n")
        #expect(parts.count > 1)
        #expect(parts.allSatisfy { $0.utf8.count <= 75 })
        #expect(folded.replacingOccurrences(of: "\r\n ", with: "") == long)
    }
}
