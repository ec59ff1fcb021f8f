import Foundation

/// Writes planned reminders as an RFC 5545 (iCalendar) file that phones and calendar programs
/// import: one VEVENT per reminder with a display alarm at its start.
///
/// What RFC 5545 asks and this honours: CRLF line ends (3.1), lines folded at 75 octets
/// without splitting a UTF-8 character (3.1), TEXT values escaped (3.3.11), UTC times with
/// a `Z` (3.3.5), and a UID that stays the same when the file is exported again (3.8.4.7), so a
/// second import updates events instead of doubling them.
public struct ICalendarExport: Sendable {
    public let productID: String

    public init(productID: String = "-//UNITI//Reminders//EN") {
        self.productID = productID
    }

    /// The calendar text. `stamp` is the DTSTAMP (when the file was made).
    public func calendar(for reminders: [PlannedReminder], stamp: Date) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(productID)", "CALSCALE:GREGORIAN", "METHOD:PUBLISH"]
        var summaries: [String: (summary: String, description: String)] = [:]  // one lookup per module and command
        for reminder in reminders {
            let key = reminder.moduleName + "\u{0}" + reminder.command
            let texts = summaries[key] ?? (
                L("reminders.ics.summary", ["module": reminder.moduleName, "command": reminder.command]),
                L("reminders.ics.description", ["command": reminder.command]))
            summaries[key] = texts
            let summary = texts.summary
            lines += [
                "BEGIN:VEVENT",
                "UID:\(Self.escape(reminder.id))@uniti",
                "DTSTAMP:\(Self.utc(stamp))",
                "DTSTART:\(Self.utc(reminder.date))",
                "DURATION:PT5M",
                "SUMMARY:\(Self.escape(summary))",
                "DESCRIPTION:\(Self.escape(texts.description))",
                "CATEGORIES:\(Self.escape(reminder.moduleID))",
                "BEGIN:VALARM",
                "ACTION:DISPLAY",
                "DESCRIPTION:\(Self.escape(summary))",
                "TRIGGER:PT0M",
                "END:VALARM",
                "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        return lines.map(Self.fold).joined(separator: "\r\n") + "\r\n"
    }

    /// `20260329T013000Z`.
    static func utc(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let day = LocalDate(dayNumber: LocalDate.floorDiv(seconds, 86_400))
        let rest = LocalDate.floorMod(seconds, 86_400)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(day.year)\(two(day.month))\(two(day.day))T\(two(rest / 3600))\(two(rest / 60 % 60))\(two(rest % 60))Z"
    }

    /// Escapes a TEXT value: backslash, semicolon, comma and line breaks.
    static func escape(_ text: String) -> String {
        // Most values need nothing; checking bytes first keeps a year's export quick.
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x3B || $0 == 0x2C || $0 == 0x0A || $0 == 0x0D }) else {
            return text
        }
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n", "\r\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// Folds a content line into pieces of at most 75 octets; continuation lines begin with
    /// one space (which counts toward their 75).
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }  // most lines: nothing to do
        var pieces: [String] = []
        var current = ""
        var octets = 0
        var limit = 75
        for scalar in line.unicodeScalars {
            let size = scalar.utf8.count
            if octets + size > limit {
                pieces.append(current)
                current = ""
                octets = 0
                limit = 74  // the leading space takes one octet
            }
            current.unicodeScalars.append(scalar)
            octets += size
        }
        pieces.append(current)
        return pieces.joined(separator: "\r\n ")
    }
}
